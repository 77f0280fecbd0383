import { apiGet } from '../lib/api-client';

/** Every 401 ends the console's session, whichever call met it. */
export { onUnauthorized } from '../lib/api-client';

/** Ends the session on the server; the console forgets it whatever the answer. */
export function endServerSession() {
  return apiGet('/api/user/logout');
}
