/** `idx build --mode`: production minifies the bundles (names kept, source maps beside them). */
export type BuildMode = 'production' | 'development';
export const BUILD_MODES: readonly BuildMode[] = ['production', 'development'];
