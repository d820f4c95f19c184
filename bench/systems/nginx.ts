import { closeSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { start } from '../lib/cleanup.js'
import { freePort, waitForHttp } from '../lib/net.js'
import { isAlive, logFile, runningSystem, tail, type RunningSystem } from './system.js'

/** nginx as a plain reverse proxy: one worker, keep-alive to the upstream, no access log. */
export function nginxConfig(dir: string, port: number, upstreamPort: number): string {
  return `daemon off;
master_process on;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/nginx-error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  keepalive_requests 1000000;
  keepalive_timeout 120s;
  upstream bench_upstream {
    server 127.0.0.1:${upstreamPort};
    keepalive 64;
    keepalive_requests 1000000;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://bench_upstream;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`
}

export async function startNginx(
  nginxPath: string,
  parent: string,
  upstreamPort: number,
  cpus: string | null,
): Promise<RunningSystem> {
  const dir = join(parent, 'nginx')
  mkdirSync(dir, { recursive: true })
  const port = await freePort()
  const conf = join(dir, 'nginx.conf')
  writeFileSync(conf, nginxConfig(dir, port, upstreamPort))
  const out = logFile(join(dir, 'nginx.out'))
  const child = start(nginxPath, ['-p', dir, '-c', conf, '-e', join(dir, 'nginx-error.log')], {
    cpus,
    stdio: ['ignore', out.fd, out.fd],
  })
  closeSync(out.fd)
  const baseUrl = `http://127.0.0.1:${port}`
  try {
    await waitForHttp(`${baseUrl}/health`, 'nginx', isAlive(child), 20_000)
  } catch (error) {
    throw new Error(`${String(error)}\n${tail(join(dir, 'nginx-error.log'))}`, { cause: error })
  }
  return runningSystem('nginx', baseUrl, child)
}
