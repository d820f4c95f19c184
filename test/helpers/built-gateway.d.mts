/** The built entry point, dist/main.js. */
export declare const BUILT_MAIN: string
/** True when dist/ holds a build of the current sources. */
export declare function builtGatewayIsCurrent(): boolean
/** Builds dist/ unless it is current. */
export declare function buildGateway(): void
/** The migrated embedded-store directory to copy, or undefined when it is not from this build. */
export declare function currentStoreTemplate(): string | undefined
/** Makes the store template with the built code unless the current one is from this build. */
export declare function makeStoreTemplate(): Promise<void>
