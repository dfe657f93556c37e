import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Why this machine cannot mount a tmpfs (not root, no mount permission in this container), or
 * false when it can: tried once, on a folder of its own, so that a test can say `{ skip: noTmpfs }`.
 */
export const noTmpfs: string | false = await (async () => {
  if (process.platform !== 'linux') return 'mounting a tmpfs needs Linux';
  if (process.getuid?.() !== 0) return 'needs root to mount a tmpfs';
  const probe = await mkdtemp(join(tmpdir(), 'idx-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return false;
  } catch {
    return 'mount -t tmpfs is not permitted here';
  } finally {
    await rmdir(probe);
  }
})();

/**
 * Mounts a tmpfs at `dir` (made when missing), as a Docker volume arrives: an empty folder that is
 * a mount point, mode 755 unless `mode` says otherwise. Returns the unmount, for the test's
 * teardown to call before it removes the folder around it.
 */
export async function mountTmpfs(dir: string, { sizeMiB = 256, mode = '755' } = {}): Promise<() => void> {
  await mkdir(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m,mode=${mode}`, 'tmpfs', dir], { stdio: 'ignore' });
  return () => execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
}
