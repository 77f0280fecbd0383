import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import type { SessionUser } from '../../app/session-context';
import {
  beginPasskeyLogin,
  beginPasskeyRegistration,
  finishPasskeyLogin,
  finishPasskeyRegistration,
  type PasskeySummary,
} from './api';

/** Signs in with a passkey of this site the browser offers (discoverable: no username asked). */
export async function passkeySignIn(): Promise<SessionUser> {
  const response = await startAuthentication({ optionsJSON: await beginPasskeyLogin() });
  return finishPasskeyLogin(response);
}

/** Creates a passkey on this device for the signed-in user. */
export async function registerPasskey(alias: string): Promise<PasskeySummary> {
  const response = await startRegistration({ optionsJSON: await beginPasskeyRegistration() });
  return finishPasskeyRegistration(response, alias);
}
