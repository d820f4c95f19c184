import { readFileSync } from 'node:fs'

/** The parent of `pid` from /proc (Linux), or undefined where there is no /proc. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // "pid (command) state ppid …": the command may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return Number(fields[1])
  } catch {
    return undefined
  }
}

/** This process's ancestors, nearest first, up to (not including) init. */
function ancestors(): number[] {
  const chain = [process.ppid]
  for (let pid = process.ppid; chain.length < 64;) {
    const parent = parentOf(pid)
    if (parent === undefined || parent <= 1) break
    chain.push(parent)
    pid = parent
  }
  return chain
}

/**
 * Calls `onGone` once when any process this one was started under exits (`npm run demo` → sh →
 * tsx → this): an orphan is re-parented, which changes the chain. Signals reach only the process
 * they are sent to (`kill <npm pid>`), so without this the demo's servers would outlive npm.
 * Returns a function that stops watching.
 */
export function watchAncestors(onGone: () => void, intervalMs = 250): () => void {
  const initial = ancestors().join(' ')
  const timer = setInterval(() => {
    if (ancestors().join(' ') === initial) return
    clearInterval(timer)
    onGone()
  }, intervalMs)
  timer.unref()
  return () => clearInterval(timer)
}
