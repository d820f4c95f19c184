/** What `run` threw at once, or undefined when it returned: for answers that must not wait. */
export function thrownBy(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  return undefined
}
