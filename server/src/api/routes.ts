import { updateSelfInput } from '@switchyard/domain';
import type { RouteDef } from '../http/route.js';
import { route } from '../http/route.js';
import {
  confirmPasswordReset,
  emailQuery,
  login,
  loginBody,
  logout,
  register,
  registerInput,
  requestPasswordReset,
  resetBody,
  sendVerificationCode,
  turnstileQuery,
} from './account.js';
import { listModelOwners, userGroupMap } from './catalog.js';
import { listOptions, putOptionBody, putOptions } from './options.js';
import { generateAccessToken, getSelf, updateSelf } from './self.js';
import { siteStatus } from './site.js';

/**
 * The one table of management routes and the least role each needs (guest < user < admin < root).
 * Nothing under /api is registered anywhere else; the policy test walks every row with every role.
 */
export const apiRoutes: readonly RouteDef[] = [
  // Site
  route({ method: 'GET', url: '/api/status', access: 'guest', handler: async ({ s }) => siteStatus(s) }),
  route({
    method: 'GET',
    url: '/api/notice',
    access: 'guest',
    handler: async ({ s }) => s.options.get('Notice'),
  }),
  route({
    method: 'GET',
    url: '/api/about',
    access: 'guest',
    handler: async ({ s }) => s.options.get('About'),
  }),
  route({
    method: 'GET',
    url: '/api/home_page_content',
    access: 'guest',
    handler: async ({ s }) => s.options.get('HomePageContent'),
  }),
  route({ method: 'GET', url: '/api/model_ownedby', access: 'guest', handler: listModelOwners }),
  route({ method: 'GET', url: '/api/user_group_map', access: 'guest', handler: userGroupMap }),

  // Account
  route({
    method: 'POST',
    url: '/api/user/register',
    access: 'guest',
    rateLimit: 'critical',
    body: registerInput,
    query: turnstileQuery,
    handler: register,
  }),
  route({
    method: 'POST',
    url: '/api/user/login',
    access: 'guest',
    rateLimit: 'critical',
    body: loginBody,
    handler: login,
  }),
  route({ method: 'GET', url: '/api/user/logout', access: 'guest', handler: logout }),
  route({
    method: 'GET',
    url: '/api/verification',
    access: 'guest',
    rateLimit: 'critical',
    query: emailQuery,
    handler: sendVerificationCode,
  }),
  route({
    method: 'GET',
    url: '/api/reset_password',
    access: 'guest',
    rateLimit: 'critical',
    query: emailQuery,
    handler: requestPasswordReset,
  }),
  route({
    method: 'POST',
    url: '/api/user/reset',
    access: 'guest',
    rateLimit: 'critical',
    body: resetBody,
    handler: confirmPasswordReset,
  }),

  // Current user
  route({ method: 'GET', url: '/api/user/self', access: 'user', handler: getSelf }),
  route({ method: 'PUT', url: '/api/user/self', access: 'user', body: updateSelfInput, handler: updateSelf }),
  route({ method: 'GET', url: '/api/user/token', access: 'user', handler: generateAccessToken }),

  // Settings
  route({ method: 'GET', url: '/api/option', access: 'root', handler: listOptions }),
  route({ method: 'PUT', url: '/api/option', access: 'root', body: putOptionBody, handler: putOptions }),
];
