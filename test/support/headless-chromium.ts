import chromiumBinary from '@sparticuz/chromium';

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
