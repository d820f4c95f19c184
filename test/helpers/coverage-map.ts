/**
 * tap's coverage map (.taprc `coverage-map`): every test file covers the gateway's compiled
 * sources, and nothing else is recorded. tap hands each test process the files it covers and the
 * files it excludes in one environment variable each; a variable over the kernel's 128 KB limit
 * makes the spawn fail (E2BIG). Excluding by glob put every file of test/, bench/, demo/ and
 * scripts/ and their compiled copies in one variable, which grew with the repository until it
 * crossed the limit; the sources covered are a short, fixed list of globs' matches.
 */
export const COVERED = ['.build/src/**/*.js']

export default function coverageMap(_testFile: string): string[] {
  return COVERED
}
