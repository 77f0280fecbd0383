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
import { KLING_PLATFORM, KLING_VIDEO_ACTIONS, klingModel, presentKlingTask } from './kling-wire.js';

// Kling's video API: POST /kling/v1/videos/{text2video,image2video} goes to a Kling channel (type
// 53) with a JWT signed from its access and secret keys, billed as
// `kling-video_<model>_<mode>_<duration>`; GET /kling/v1/videos/{action}/{id} answers from the
// task row, to its owner or an administrator. Errors answer in Kling's `{code, message,
// request_id}` shape, with the HTTP status as the code.

export const KLING_TYPE = 53;

function sendKlingError(reply: FastifyReply, err: unknown): FastifyReply {
  const requestId = String(reply.request.id);
  if (err instanceof TaskRequestError)
    return reply.status(400).send({ code: 400, message: err.message, request_id: requestId });
  const e = asRelayError(err, reply.request.log);
  if (e.headers) reply.headers(e.headers);
  return reply.status(e.status).send({ code: e.status, message: e.message, request_id: requestId });
}

async function callerOf(s: Services, req: FastifyRequest): Promise<RelayCaller> {
  return s.relay.auth.authenticate(bearerKeyFromHeaders(req.headers), req.ip, s.relay.tables.groups);
}

function visibleTo(caller: RelayCaller, row: TaskRow | undefined): row is TaskRow {
  return row !== undefined && (row.user_id === caller.user.id || seesEveryTask(caller));
}

function checkPath(klass: string, action: string): void {
  if (klass !== 'videos' || !KLING_VIDEO_ACTIONS.has(action))
    throw new TaskRequestError('only videos/text2video and videos/image2video are served');
}

async function submit(
  s: Services,
  req: FastifyRequest<{ Params: { class: string; action: string } }>,
  reply: FastifyReply,
) {
  const caller = await callerOf(s, req);
  const { class: klass, action } = req.params;
  checkPath(klass, action);
  const body = parseJsonBody(req.body);
  const model = klingModel(body);
  const { callback_url: _dropped, ...forwarded } = body;
  const result = await submitTask<Record<string, unknown>>(s, caller, req.ip, req.log, {
    channelType: KLING_TYPE,
    model,
    describe: `Kling ${action}`,
    async send(channel) {
      const token = await s.tasks.klingTokens.token(channel.key);
      const answer = await callTaskUpstream(s, channel, {
        method: 'POST',
        url: joinUrl(channel.baseUrl, `v1/${klass}/${action}`),
        headers: { authorization: `Bearer ${token}` },
        body: forwarded,
      });
      const upstream = answer.json as Record<string, unknown> | undefined;
      const data = upstream?.data as Record<string, unknown> | undefined;
      const id = data?.task_id;
      if (answer.status === 200 && upstream?.code === 0 && typeof id === 'string' && id !== '')
        return { ok: true, upstreamId: id, accepted: upstream };
      if (!upstream && answer.status < 500)
        throw new TaskUpstreamError(`the upstream answered ${answer.status} without a task`);
      return { ok: false, status: answer.status === 200 ? 400 : answer.status, body: upstream };
    },
    async record(accepted, upstreamId, selection, quota) {
      return s.repos.tasks.insert(
        submittedTaskRow({
          now: s.clock.nowSeconds(),
          platform: KLING_PLATFORM,
          upstreamId,
          caller,
          selection,
          quota,
          action,
          properties: boundedJson({ class: klass, model }, '{}'),
          data: boundedJson(accepted, 'null'),
        }),
      );
    },
    charged: (rowId, quota) => s.repos.tasks.setQuota(rowId, quota),
  });
  if (!result.ok) return reply.status(result.status).send(result.body);
  return reply.send(result.accepted);
}

async function fetchTask(
  s: Services,
  req: FastifyRequest<{ Params: { action: string; id: string } }>,
  reply: FastifyReply,
) {
  const caller = await callerOf(s, req);
  checkPath('videos', req.params.action);
  const row = await s.repos.tasks.byTaskId(KLING_PLATFORM, req.params.id);
  if (!visibleTo(caller, row) || row.action !== req.params.action)
    return reply.status(404).send({ code: 404, message: 'task not found', request_id: String(req.id) });
  return reply.send(presentKlingTask(row, String(req.id)));
}

export function registerKlingRoutes(scope: FastifyInstance, s: Services): void {
  scope.setErrorHandler((err, _req, reply) => sendKlingError(reply, err));
  scope.post<{ Params: { class: string; action: string } }>('/kling/v1/:class/:action', (req, reply) =>
    submit(s, req, reply),
  );
  scope.get<{ Params: { action: string; id: string } }>('/kling/v1/videos/:action/:id', (req, reply) =>
    fetchTask(s, req, reply),
  );
}
