import { TaskStatus } from '@switchyard/domain';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Dispatcher } from 'undici';
import { bearerKeyFromHeaders, parseBearerKey } from '../../auth/api-keys.js';
import type { MidjourneyRow } from '../../db/queries/midjourneys.js';
import { storableText } from '../../db/storable-text.js';
import { asRelayError } from '../../relay/inbound/relay-routes.js';
import type { RelayCaller } from '../../relay/inbound/token-auth.js';
import type { Services } from '../../services.js';
import { channelOfTask } from '../task-channels.js';
import { parseJsonBody, TaskRequestError } from '../task-request.js';
import { seesEveryTask, submitTask } from '../task-submit.js';
import { callTaskUpstream, dispatcherFor, joinUrl, TaskUpstreamError } from '../task-upstream.js';
import {
  billedModel,
  MJ_MODES,
  MJ_SUBMIT_PATHS,
  MjActionError,
  type MjMode,
  type MjSubmitPath,
  modeName,
  submitShape,
} from './mj-actions.js';
import { boundedJson, presentMjTask } from './mj-wire.js';

// The midjourney-proxy protocol under /mj and /{mj-fast,mj-turbo,mj-relax}/mj: submits go to a
// Midjourney channel (type 34) and are billed per action; fetches answer from the task rows, and
// only to the task's owner (or an administrator); images are proxied without a key, as the
// proxy's own image links are.

export const MIDJOURNEY_TYPE = 34;
/** Submit answers of midjourney-proxy that mean the task was taken: submitted, waiting, queued. */
const ACCEPTED_CODES: ReadonlySet<number> = new Set([1, 21, 22]);
const MAX_IMAGE_BYTES = 32 * 1024 * 1024;
const MAX_LIST_IDS = 100;

/** midjourney-proxy's error body: code 4 for the request's fault, 5 for anything else. */
function sendMjError(reply: FastifyReply, err: unknown): FastifyReply {
  if (err instanceof MjActionError || err instanceof TaskRequestError) {
    return reply.status(400).send({ code: 4, description: err.message, type: 'invalid_request' });
  }
  const e = asRelayError(err, reply.request.log);
  if (e.headers) reply.headers(e.headers);
  return reply
    .status(e.status)
    .send({ code: e.status < 500 ? 4 : 5, description: e.message, type: e.code ?? e.type });
}

function keyOf(req: FastifyRequest) {
  return parseBearerKey(req.headers['mj-api-secret']) ?? bearerKeyFromHeaders(req.headers);
}

async function callerOf(s: Services, req: FastifyRequest): Promise<RelayCaller> {
  return s.relay.auth.authenticate(keyOf(req), req.ip, s.relay.tables.groups);
}

function visibleTo(caller: RelayCaller, row: MidjourneyRow | undefined): row is MidjourneyRow {
  return row !== undefined && (row.user_id === caller.user.id || seesEveryTask(caller));
}

const notFound = (reply: FastifyReply) =>
  reply.status(404).send({ code: 4, description: 'task not found', type: 'not_found' });

interface MjSubmitAccepted {
  body: Record<string, unknown>;
  upstream: Record<string, unknown>;
}

async function submit(
  s: Services,
  req: FastifyRequest,
  reply: FastifyReply,
  mode: MjMode | undefined,
  path: MjSubmitPath,
) {
  const caller = await callerOf(s, req);
  const body = parseJsonBody(req.body);
  const shape = submitShape(path, body);
  let taskCaller = caller;
  let parent: MidjourneyRow | undefined;
  if (shape.parentId !== undefined && path !== 'submit/imagine') {
    // An action on an earlier task: only its owner may press its buttons, on the channel that has it.
    parent = await s.repos.midjourneys.byMjId(shape.parentId);
    if (!visibleTo(caller, parent)) return notFound(reply);
    // Buttons exist once the task is done; a modal completes an action still waiting for it.
    if (parent.status !== TaskStatus.Success && path !== 'submit/modal')
      throw new MjActionError(`task ${parent.mj_id} has not succeeded (${parent.status || 'unknown'})`);
    taskCaller = { ...caller, pinChannelId: parent.channel_id };
  }
  const model = billedModel(mode, shape.action);
  const upload = path === 'submit/upload-discord-images';
  // The gateway polls; the proxy must not call back clients' hooks with its own links.
  const { notifyHook: _dropped, ...forwarded } = body;
  const result = await submitTask<MjSubmitAccepted>(s, taskCaller, req.ip, req.log, {
    channelType: MIDJOURNEY_TYPE,
    model,
    describe: `Midjourney ${shape.action}`,
    async send(channel) {
      // The mode picks the price only; the proxy serves every submit under /mj.
      const url = joinUrl(channel.baseUrl, `mj/${path}`);
      const answer = await callTaskUpstream(s, channel, {
        method: 'POST',
        url,
        headers: { 'mj-api-secret': channel.key },
        body: forwarded,
      });
      const upstream = answer.json as Record<string, unknown> | undefined;
      const code = typeof upstream?.code === 'number' ? upstream.code : Number.NaN;
      const id = upstream?.result;
      if (
        answer.status === 200 &&
        upstream &&
        ACCEPTED_CODES.has(code) &&
        (typeof id === 'string' || typeof id === 'number') &&
        String(id) !== ''
      ) {
        return { ok: true, upstreamId: String(id), accepted: { body, upstream } };
      }
      // An upload answers the image links themselves: done at once, nothing to follow.
      if (upload && answer.status === 200 && upstream && code === 1 && Array.isArray(id)) {
        return { ok: true, upstreamId: '', accepted: { body, upstream } };
      }
      if (answer.status >= 500 || !upstream) {
        if (answer.status < 500)
          throw new TaskUpstreamError(`the upstream answered ${answer.status} without a task object`);
        return {
          ok: false,
          status: answer.status,
          body: answer.json ?? { code: 5, description: answer.text },
        };
      }
      // Refused (a banned prompt, a full queue): the proxy's answer as it gave it, nothing charged.
      return { ok: false, status: answer.status === 200 ? 400 : answer.status, body: upstream };
    },
    async record(accepted, upstreamId, selection, quota) {
      const now = s.clock.nowSeconds();
      const p = accepted.body;
      // Code 21: the proxy already has this task; with a result it is finished now.
      const known = existingResult(accepted.upstream);
      const done = upload || known !== undefined;
      return s.repos.midjourneys.insert({
        code: accepted.upstream.code as number,
        user_id: caller.user.id,
        token_id: caller.token.id,
        action: shape.action,
        mj_id: storableText(upstreamId).slice(0, 190),
        prompt:
          typeof p.prompt === 'string' ? storableText(p.prompt).slice(0, 20_000) : (parent?.prompt ?? ''),
        prompt_en: '',
        description:
          typeof accepted.upstream.description === 'string'
            ? storableText(accepted.upstream.description)
            : '',
        state: typeof p.state === 'string' ? storableText(p.state).slice(0, 2000) : '',
        submit_time: now,
        start_time: done ? now : 0,
        finish_time: done ? now : 0,
        image_url: known ?? '',
        status: done ? TaskStatus.Success : TaskStatus.Submitted,
        progress: done ? '100%' : '0%',
        fail_reason: '',
        channel_id: selection.channel.id,
        quota,
        buttons: '[]',
        properties: boundedJson(
          upload ? { uploads: accepted.upstream.result } : (accepted.upstream.properties ?? {}),
          '{}',
        ),
        mode: modeName(mode),
      });
    },
    charged: (rowId, quota) => s.repos.midjourneys.setQuota(rowId, quota),
  });
  if (!result.ok) return reply.status(result.status).send(result.body);
  const answer = result.accepted.upstream;
  // Existing (21) and queued (22) tasks are taken tasks: clients wait for code 1. A modal-bound
  // action (inpaint, custom zoom) keeps its 21, which tells the client to send the modal.
  const awaitsModal = shape.action === 'INPAINT' || shape.action === 'CUSTOM_ZOOM';
  if (answer.code === 22 || (answer.code === 21 && !awaitsModal)) return reply.send({ ...answer, code: 1 });
  return reply.send(answer);
}

/** The image of a task the proxy already finished (code 21 with `properties.status` SUCCESS). */
function existingResult(upstream: Record<string, unknown>): string | undefined {
  if (upstream.code !== 21) return undefined;
  const p = upstream.properties as { status?: unknown; imageUrl?: unknown } | undefined;
  return p?.status === TaskStatus.Success && typeof p.imageUrl === 'string' && p.imageUrl !== ''
    ? storableText(p.imageUrl).slice(0, 2000)
    : undefined;
}

async function fetchTask(s: Services, req: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
  const caller = await callerOf(s, req);
  const row = await s.repos.midjourneys.byMjId(req.params.id);
  if (!visibleTo(caller, row)) return notFound(reply);
  return reply.send(presentMjTask(row, s.options.current.ServerAddress));
}

async function listByCondition(s: Services, req: FastifyRequest, reply: FastifyReply) {
  const caller = await callerOf(s, req);
  const body = parseJsonBody(req.body);
  const ids = body.ids;
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string'))
    throw new TaskRequestError('ids must be an array of task ids');
  if (ids.length > MAX_LIST_IDS) throw new TaskRequestError(`at most ${MAX_LIST_IDS} ids`);
  const rows = await s.repos.midjourneys.byMjIds(ids as string[]);
  const address = s.options.current.ServerAddress;
  return reply.send(rows.filter((r) => visibleTo(caller, r)).map((r) => presentMjTask(r, address)));
}

async function imageSeed(s: Services, req: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
  const caller = await callerOf(s, req);
  const row = await s.repos.midjourneys.byMjId(req.params.id);
  if (!visibleTo(caller, row)) return notFound(reply);
  const channel = await channelOfTask(s, row.channel_id);
  if (!channel) return notFound(reply);
  const answer = await callTaskUpstream(s, channel, {
    method: 'GET',
    url: joinUrl(channel.baseUrl, `mj/task/${encodeURIComponent(row.mj_id)}/image-seed`),
    headers: { 'mj-api-secret': channel.key },
  });
  if (answer.json === undefined)
    return reply
      .status(502)
      .send({ code: 5, description: `upstream answered ${answer.status}`, type: 'upstream_error' });
  return reply.status(answer.status >= 500 ? 502 : answer.status).send(answer.json);
}

/** The task's image, fetched from where the proxy put it through the channel's route. No key. */
async function image(s: Services, req: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
  const row = await s.repos.midjourneys.byMjId(req.params.id);
  if (!row?.image_url)
    return reply.status(404).send({ code: 4, description: 'image not found', type: 'not_found' });
  const channel = await channelOfTask(s, row.channel_id);
  if (!channel) return reply.status(404).send({ code: 4, description: 'image not found', type: 'not_found' });
  let url: URL;
  try {
    url = new URL(row.image_url, channel.baseUrl);
  } catch {
    return reply
      .status(502)
      .send({ code: 5, description: 'the task has no usable image URL', type: 'upstream_error' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return reply
      .status(502)
      .send({ code: 5, description: 'the task has no usable image URL', type: 'upstream_error' });
  let res: Dispatcher.ResponseData;
  try {
    res = await dispatcherFor(s, channel).request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: { accept: 'image/*' },
      headersTimeout: 30_000,
      bodyTimeout: 60_000,
    });
  } catch (err) {
    req.log.warn({ err, mjId: row.mj_id }, 'midjourney image could not be fetched');
    return reply
      .status(502)
      .send({ code: 5, description: 'the image could not be fetched', type: 'upstream_error' });
  }
  if (res.statusCode !== 200) {
    res.body.destroy();
    return reply
      .status(502)
      .send({ code: 5, description: `the image host answered ${res.statusCode}`, type: 'upstream_error' });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_IMAGE_BYTES) {
        res.body.destroy();
        return reply
          .status(502)
          .send({ code: 5, description: 'the image is too large', type: 'upstream_error' });
      }
      chunks.push(chunk as Buffer);
    }
  } catch {
    return reply
      .status(502)
      .send({ code: 5, description: 'the image download broke off', type: 'upstream_error' });
  }
  const type = String(res.headers['content-type'] ?? 'application/octet-stream');
  return reply
    .header('content-type', type.startsWith('image/') ? type : 'application/octet-stream')
    .header('cache-control', 'public, max-age=86400')
    .header('x-content-type-options', 'nosniff')
    .send(Buffer.concat(chunks));
}

/** Registers /mj/... and /:mode/mj/... in the task relays' scope. */
export function registerMidjourneyRoutes(scope: FastifyInstance, s: Services): void {
  scope.setErrorHandler((err, _req, reply) => sendMjError(reply, err));
  for (const mode of [undefined, ...MJ_MODES]) {
    const prefix = mode ? `/${mode}/mj` : '/mj';
    for (const path of MJ_SUBMIT_PATHS) {
      scope.post(`${prefix}/${path}`, (req, reply) => submit(s, req, reply, mode, path));
    }
    scope.get<{ Params: { id: string } }>(`${prefix}/task/:id/fetch`, (req, reply) =>
      fetchTask(s, req, reply),
    );
    scope.post(`${prefix}/task/list-by-condition`, (req, reply) => listByCondition(s, req, reply));
    scope.get<{ Params: { id: string } }>(`${prefix}/task/:id/image-seed`, (req, reply) =>
      imageSeed(s, req, reply),
    );
    scope.get<{ Params: { id: string } }>(`${prefix}/image/:id`, (req, reply) => image(s, req, reply));
  }
}

export { sendMjError };
