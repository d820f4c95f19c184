/** The part of autocannon's programmatic API the harness uses (the package ships no types). */
declare module 'autocannon' {
  interface AutocannonRequest {
    headers?: Record<string, string>
    setupRequest?: (request: AutocannonRequest) => AutocannonRequest
  }
  interface AutocannonOptions {
    url: string
    connections: number
    duration: number
    headers?: Record<string, string>
    requests?: AutocannonRequest[]
    timeout?: number
  }
  interface AutocannonResult {
    requests: { total: number }
    duration: number
    non2xx: number
    statusCodeStats: Record<string, { count: number }>
    errors: number
    timeouts: number
    latency: { p50: number; p99: number }
  }
  function autocannon(options: AutocannonOptions): Promise<AutocannonResult>
  export default autocannon
}
