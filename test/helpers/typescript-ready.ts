/** Loaded once through tsx by register-tsx.mjs, so that tsx's hooks are in place before it returns. */
export const TYPESCRIPT_READY = true
