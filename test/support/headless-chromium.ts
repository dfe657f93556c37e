import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import chromiumBinary from '@sparticuz/chromium';
import { chromium, type BrowserContext } from 'playwright-core';
import type { Teardown } from './teardown.ts';

/**
 * The Chromium a browser test drives: the build @sparticuz/chromium ships inside its npm tarball
 * (with the libraries it needs), unpacked on first use into the temporary folder. So `npm ci && npm
 * test` needs no browser on the machine and downloads nothing beyond the npm registry.
 * IDX_CHROMIUM=<path> uses another Chromium instead (a desktop one, to watch a test).
 */
export async function headlessChromium(): Promise<{ executablePath: string; args: string[] }> {
  const executablePath = process.env.IDX_CHROMIUM || (await chromiumBinary.executablePath());
  return {
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // the unpacked build has no /dev/shm sizing assumptions of a desktop install
      '--disable-dev-shm-usage',
    ],
  };
}

/** That Chromium driven by playwright-core, with a throw-away profile; closed and removed on teardown. */
export async function launchHeadlessChromium(t: Teardown): Promise<BrowserContext> {
  const profile = await mkdtemp(join(tmpdir(), 'idx-chromium-'));
  t.teardown(() => rm(profile, { recursive: true, force: true }));
  const context = await chromium.launchPersistentContext(profile, { ...(await headlessChromium()), headless: true });
  t.teardown(() => context.close());
  return context;
}
