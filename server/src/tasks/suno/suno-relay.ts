import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearerKeyFromHeaders } from '../../auth/api-keys.js';
import type { TaskRow } from '../../db/queries/tasks.js';
import { asRelayError } from '../../relay/inbound/relay-routes.js';
import type { RelayCaller } from '../../relay/inbound/token-auth.js';
import type { Services } from '../../services.js';
import { boundedJson } from '../midjourney/mj-wire.js';
import { parseJsonBody, TaskRequestError } from '../task-request.js';
import { seesEveryTask, submitTask, submittedTaskRow } from '../task-submit.js';
import { callTaskUpstream, joinUrl, TaskUpstreamError } from '../task-upstream.js';
import { presentSunoTask, SUNO_PLATFORM, sunoEnvelope } from './suno-wire.js';

// The Suno-API protocol: POST /suno/submit/{music,lyrics} goes to a Suno channel (type 41), billed
// as the song's model (`mv`, default chirp-v3-0) or `suno_lyrics`; POST /suno/fetch and GET
// /suno/fetch/{id} answer from the task rows, to their owner or an administrator.

export const SUNO_TYPE = 41;
const DEFAULT_MUSIC_MODEL = 'chirp-v3-0';
const MAX_FETCH_IDS = 100;
const ACTIONS: Record<string, string> = { music: 'MUSIC', lyrics: 'LYRICS' };

function sendSunoError(reply: FastifyReply, err: unknown): FastifyReply {
  if (err instanceof TaskRequestError)
    return reply.status(400).send({ code: 'invalid_request', message: err.message, data: null });
  const e = asRelayError(err, reply.request.log);
  if (e.headers) reply.headers(e.headers);
  return reply.status(e.status).send({ code: e.code ?? e.type, message: e.message, data: null });
}

async function callerOf(s: Services, req: FastifyRequest): Promise<RelayCaller> {
  return s.relay.auth.authenticate(bearerKeyFromHeaders(req.headers), req.ip, s.relay.tables.groups);
}

function visibleTo(caller: RelayCaller, row: TaskRow | undefined): row is TaskRow {
  return row !== undefined && (row.user_id === caller.user.id || seesEveryTask(caller));
}

async function submit(s: Services, req: FastifyRequest<{ Params: { action: string } }>, reply: FastifyReply) {
  const caller = await callerOf(s, req);
  const action = ACTIONS[req.params.action.toLowerCase()];
  if (!action) throw new TaskRequestError('the action must be music or lyrics');
  const body = parseJsonBody(req.body);
  const mv = typeof body.mv === 'string' && body.mv.trim() !== '' ? body.mv.trim() : DEFAULT_MUSIC_MODEL;
  const model = action === 'LYRICS' ? 'suno_lyrics' : mv;
  const { notify_hook: _dropped, ...forwarded } = body;
  const result = await submitTask<Record<string, unknown>>(s, caller, req.ip, req.log, {
    channelType: SUNO_TYPE,
    model,
    describe: `Suno ${action}`,
    async send(channel) {
      const answer = await callTaskUpstream(s, channel, {
        method: 'POST',
        url: joinUrl(channel.baseUrl, `suno/submit/${action.toLowerCase()}`),
        headers: { authorization: `Bearer ${channel.key}` },
        body: forwarded,
      });
      const upstream = answer.json as Record<string, unknown> | undefined;
      const id = upstream?.data;
      if (answer.status === 200 && upstream?.code === 'success' && typeof id === 'string' && id !== '')
        return { ok: true, upstreamId: id, accepted: upstream };
      if (!upstream && answer.status < 500)
        throw new TaskUpstreamError(`the upstream answered ${answer.status} without a task`);
      return { ok: false, status: answer.status === 200 ? 400 : answer.status, body: upstream };
    },
    async record(_accepted, upstreamId, selection, quota) {
      return s.repos.tasks.insert(
        submittedTaskRow({
          now: s.clock.nowSeconds(),
          platform: SUNO_PLATFORM,
          upstreamId,
          caller,
          selection,
          quota,
          action,
          properties: boundedJson(
            { model, prompt: typeof body.prompt === 'string' ? body.prompt : '' },
            '{}',
          ),
          data: 'null',
        }),
      );
    },
    charged: (rowId, quota) => s.repos.tasks.setQuota(rowId, quota),
  });
  if (!result.ok) return reply.status(result.status).send(result.body);
  return reply.send(sunoEnvelope(result.upstreamId));
}

async function fetchOne(s: Services, req: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
  const caller = await callerOf(s, req);
  const row = await s.repos.tasks.byTaskId(SUNO_PLATFORM, req.params.id);
  if (!visibleTo(caller, row))
    return reply.status(404).send({ code: 'task_not_exist', message: 'task not found', data: null });
  return reply.send(sunoEnvelope(presentSunoTask(row)));
}

async function fetchMany(s: Services, req: FastifyRequest, reply: FastifyReply) {
  const caller = await callerOf(s, req);
  const body = parseJsonBody(req.body);
  const ids = body.ids;
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string'))
    throw new TaskRequestError('ids must be an array of task ids');
  if (ids.length > MAX_FETCH_IDS) throw new TaskRequestError(`at most ${MAX_FETCH_IDS} ids`);
  const rows = await s.repos.tasks.byTaskIds(SUNO_PLATFORM, ids as string[]);
  return reply.send(sunoEnvelope(rows.filter((r) => visibleTo(caller, r)).map(presentSunoTask)));
}

export function registerSunoRoutes(scope: FastifyInstance, s: Services): void {
  scope.setErrorHandler((err, _req, reply) => sendSunoError(reply, err));
  scope.post<{ Params: { action: string } }>('/suno/submit/:action', (req, reply) => submit(s, req, reply));
  scope.post('/suno/fetch', (req, reply) => fetchMany(s, req, reply));
  scope.get<{ Params: { id: string } }>('/suno/fetch/:id', (req, reply) => fetchOne(s, req, reply));
}
