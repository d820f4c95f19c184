import {
  startGateway,
  type ConfigInput,
  type StartOptions,
  type Teardown,
  type TestGateway,
} from './gateway.js'

/**
 * Config sections under which every request passes authentication without a credential and
 * without a store: a security key nobody sends, with every path excluded (`/` and `/**`), and
 * service accounts off. The foundation tests are about transport (proxying, streaming, paths,
 * limits), not authentication; the open mode would start an embedded PostgreSQL per gateway.
 */
export const PASS_THROUGH_AUTH: ConfigInput = {
  auth: {
    security_key: 'foundation-tests-key-that-nobody-sends',
    excluded_route_paths: ['/', '/**'],
  },
  service_accounts: { enabled: false },
}

/** A real gateway on port 0 with PASS_THROUGH_AUTH and the given sections; stopped at teardown. */
export function startFoundationGateway(
  t: Teardown,
  input: ConfigInput,
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<TestGateway> {
  const auth = {
    ...(PASS_THROUGH_AUTH.auth as object),
    ...((input.auth as object | undefined) ?? {}),
  }
  return startGateway(t, { ...PASS_THROUGH_AUTH, ...input, auth }, env, options)
}
