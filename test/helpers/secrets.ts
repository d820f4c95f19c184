/**
 * Secrets of the strength the gateway requires (at least 32 characters; see
 * src/config/secret-strength.ts), for tests that do not care which.
 */
export const STRONG_SECURITY_KEY = 'test-security-key-4c1f9e0a7b2d5e8f3a6c'
