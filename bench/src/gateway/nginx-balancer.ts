import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, type ManagedProcess, waitForHttp } from '../processes/managed-process.js';
import { startNginx } from '../processes/nginx-process.js';

// nginx in front of several gateways (the two-node variant): round robin over kept-alive upstream
// connections, nothing buffered, so a stream's events pass as the gateway writes them.

export function balancerConf(dir: string, port: number, origins: readonly string[]): string {
  const p = (name: string) => path.join(dir, name);
  const servers = origins.map((o) => `    server ${new URL(o).host};`).join('\n');
  return `worker_processes 1;
pid ${p('nginx.pid')};
error_log ${p('error.log')} warn;
events { worker_connections 8192; multi_accept on; }
http {
  access_log off;
  client_body_temp_path ${p('tmp/body')};
  proxy_temp_path ${p('tmp/proxy')};
  fastcgi_temp_path ${p('tmp/fastcgi')};
  uwsgi_temp_path ${p('tmp/uwsgi')};
  scgi_temp_path ${p('tmp/scgi')};
  keepalive_requests 10000000;
  keepalive_timeout 120s;
  upstream gateways {
${servers}
    keepalive 256;
    keepalive_requests 10000000;
  }
  server {
    listen 127.0.0.1:${port} backlog=4096;
    location / {
      proxy_pass http://gateways;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_buffering off;
      proxy_request_buffering off;
    }
  }
}
`;
}

export class NginxBalancer {
  private constructor(
    readonly proc: ManagedProcess,
    readonly origin: string,
  ) {}

  /** `probePath`: a GET every origin answers, asked through nginx until it answers. */
  static async start(
    runDir: string,
    name: string,
    origins: readonly string[],
    probePath = '/api/status',
  ): Promise<NginxBalancer> {
    const dir = path.join(runDir, `nginx-${name}`);
    mkdirSync(path.join(dir, 'tmp'), { recursive: true });
    const port = await freePort();
    writeFileSync(path.join(dir, 'nginx.conf'), balancerConf(dir, port, origins));
    const proc = startNginx(dir, `nginx balancer (${name})`, path.join(runDir, `balancer-nginx-${name}.log`));
    const origin = `http://127.0.0.1:${port}`;
    await waitForHttp(`${origin}${probePath}`, proc, 10_000);
    return new NginxBalancer(proc, origin);
  }

  stop(): Promise<void> {
    return this.proc.stop(5000);
  }
}
