/** Bundles `entry` (a path from the project's root, compiled JavaScript or TypeScript) into dist/cli/. */
export declare const bundleCli: (entry: string) => Promise<void>
