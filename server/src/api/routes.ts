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
import {
  channelCreateBody,
  channelListQuery,
  channelTestQuery,
  channelUpdateBody,
  createChannel,
  deleteChannel,
  getChannel,
  getChannelKey,
  listChannels,
  testAllChannels,
  testOneChannel,
  updateChannel,
} from './channels.js';
import {
  deleteLogs,
  listLogs,
  listSelfLogs,
  logDeleteQuery,
  logListQuery,
  logStat,
  logStatQuery,
  selfLogListQuery,
  selfLogStat,
  selfLogStatQuery,
} from './logs.js';
import { listOptions, putOptionBody, putOptions } from './options.js';
import {
  createPrice,
  deletePrice,
  deletePrices,
  listPriceModels,
  listPrices,
  priceBody,
  priceDeleteManyBody,
  priceModelParams,
  priceMultipleBody,
  priceSyncBody,
  priceSyncQuery,
  pricesQuery,
  syncPrices,
  updatePrice,
  updatePrices,
} from './prices.js';
import { generateAccessToken, getSelf, updateSelf } from './self.js';
import { siteStatus } from './site.js';
import {
  createToken,
  deleteToken,
  getToken,
  getTokenKey,
  listTokens,
  tokenCreateBody,
  tokenListQuery,
  tokenUpdateBody,
  tokenUpdateQuery,
  updateToken,
} from './tokens.js';
import { idParams } from './validation.js';

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

  // Tokens: the caller's own only
  route({ method: 'GET', url: '/api/token', access: 'user', query: tokenListQuery, handler: listTokens }),
  route({ method: 'GET', url: '/api/token/:id', access: 'user', params: idParams, handler: getToken }),
  route({ method: 'GET', url: '/api/token/:id/key', access: 'user', params: idParams, handler: getTokenKey }),
  route({ method: 'POST', url: '/api/token', access: 'user', body: tokenCreateBody, handler: createToken }),
  route({
    method: 'PUT',
    url: '/api/token',
    access: 'user',
    body: tokenUpdateBody,
    query: tokenUpdateQuery,
    handler: updateToken,
  }),
  route({ method: 'DELETE', url: '/api/token/:id', access: 'user', params: idParams, handler: deleteToken }),

  // Channels
  route({
    method: 'GET',
    url: '/api/channel',
    access: 'admin',
    query: channelListQuery,
    handler: listChannels,
  }),
  route({ method: 'GET', url: '/api/channel/:id', access: 'admin', params: idParams, handler: getChannel }),
  route({ method: 'GET', url: '/api/channel/test', access: 'admin', handler: testAllChannels }),
  route({
    method: 'GET',
    url: '/api/channel/test/:id',
    access: 'admin',
    params: idParams,
    query: channelTestQuery,
    handler: testOneChannel,
  }),
  route({
    method: 'GET',
    url: '/api/channel/:id/key',
    access: 'admin',
    params: idParams,
    handler: getChannelKey,
  }),
  route({
    method: 'POST',
    url: '/api/channel',
    access: 'admin',
    body: channelCreateBody,
    handler: createChannel,
  }),
  route({
    method: 'PUT',
    url: '/api/channel',
    access: 'admin',
    body: channelUpdateBody,
    handler: updateChannel,
  }),
  route({
    method: 'DELETE',
    url: '/api/channel/:id',
    access: 'admin',
    params: idParams,
    handler: deleteChannel,
  }),

  // Prices
  route({ method: 'GET', url: '/api/prices', access: 'guest', query: pricesQuery, handler: listPrices }),
  route({ method: 'GET', url: '/api/prices/model_list', access: 'admin', handler: listPriceModels }),
  route({
    method: 'POST',
    url: '/api/prices/single',
    access: 'admin',
    body: priceBody,
    handler: createPrice,
  }),
  route({
    method: 'PUT',
    url: '/api/prices/single/*',
    access: 'admin',
    params: priceModelParams,
    body: priceBody,
    handler: updatePrice,
  }),
  route({
    method: 'DELETE',
    url: '/api/prices/single/*',
    access: 'admin',
    params: priceModelParams,
    handler: deletePrice,
  }),
  route({
    method: 'POST',
    url: '/api/prices/multiple',
    access: 'admin',
    body: priceMultipleBody,
    handler: updatePrices,
  }),
  route({
    method: 'PUT',
    url: '/api/prices/multiple/delete',
    access: 'admin',
    body: priceDeleteManyBody,
    handler: deletePrices,
  }),
  route({
    method: 'POST',
    url: '/api/prices/sync',
    access: 'admin',
    query: priceSyncQuery,
    body: priceSyncBody,
    handler: syncPrices,
  }),

  // Logs
  route({ method: 'GET', url: '/api/log', access: 'admin', query: logListQuery, handler: listLogs }),
  route({ method: 'DELETE', url: '/api/log', access: 'admin', query: logDeleteQuery, handler: deleteLogs }),
  route({ method: 'GET', url: '/api/log/stat', access: 'admin', query: logStatQuery, handler: logStat }),
  route({
    method: 'GET',
    url: '/api/log/self',
    access: 'user',
    query: selfLogListQuery,
    handler: listSelfLogs,
  }),
  route({
    method: 'GET',
    url: '/api/log/self/stat',
    access: 'user',
    query: selfLogStatQuery,
    handler: selfLogStat,
  }),

  // Settings
  route({ method: 'GET', url: '/api/option', access: 'root', handler: listOptions }),
  route({ method: 'PUT', url: '/api/option', access: 'root', body: putOptionBody, handler: putOptions }),
];
