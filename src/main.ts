#!/usr/bin/env node
import { runCli } from './cli/program.js'

await runCli(process.argv)
