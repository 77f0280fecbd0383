import path from 'node:path';
import { ManagedProcess } from './managed-process.js';

/**
 * Runs nginx in the foreground on `<dir>/nginx.conf`, with `dir` as its prefix (temp files, pid) and
 * its error log there, so a bench run's nginx processes never touch the system's.
 */
export function startNginx(dir: string, name: string, logFile: string): ManagedProcess {
  return ManagedProcess.start({
    name,
    command: 'nginx',
    args: [
      '-p',
      dir,
      '-e',
      path.join(dir, 'error.log'),
      '-c',
      path.join(dir, 'nginx.conf'),
      '-g',
      'daemon off;',
    ],
    logFile,
  });
}
