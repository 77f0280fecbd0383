import {
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  startAuthentication,
  startRegistration,
} from '@simplewebauthn/browser';
import type { SessionUser } from '../../app/session-context';
import { apiPost } from '../../lib/api-client';

/** Signs in with a passkey of this site the browser offers (discoverable: no username asked). */
export async function passkeySignIn(): Promise<SessionUser> {
  const optionsJSON = await apiPost<PublicKeyCredentialRequestOptionsJSON>('/api/webauthn/login/begin');
  const response = await startAuthentication({ optionsJSON });
  return apiPost<SessionUser>('/api/webauthn/login/finish', response);
}

export interface PasskeySummary {
  id: number;
  alias: string;
  created_time: number;
  last_used_time: number;
}

/** Creates a passkey on this device for the signed-in user. */
export async function registerPasskey(alias: string): Promise<PasskeySummary> {
  const optionsJSON = await apiPost<PublicKeyCredentialCreationOptionsJSON>(
    '/api/webauthn/registration/begin',
  );
  const response = await startRegistration({ optionsJSON });
  return apiPost<PasskeySummary>('/api/webauthn/registration/finish', { response, alias });
}
