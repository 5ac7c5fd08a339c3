/**
 * A bench script's command line: node's parseArgs, but `--help` prints the script's options (exit 0) and an
 * unknown option or a missing value is one line with them (exit 2), never a stack trace. The usage is made from
 * the options themselves, so it cannot drift from them.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/** `usage: node dist/bench/NAME.js --db VALUE [--runs 5] [--json] ...` from the options' names and defaults;
 * `required` names the options the script cannot run without. */
export function usageOf(script: string, options: Options, required: readonly string[] = []): string {
  const parts = Object.entries(options).map(([name, o]) => {
    if (required.includes(name)) return `--${name} VALUE`;
    if (o.type === 'boolean') return `[--${name}]`;
    return `[--${name} ${o.default !== undefined ? String(o.default) : 'VALUE'}]`;
  });
  return `usage: node dist/bench/${script}.js ${parts.join(' ')}`;
}

export function benchArgs<const T extends ParseArgsConfig>(
  script: string,
  config: T,
  required: readonly string[] = [],
): ReturnType<typeof parseArgs<T>> {
  const argv = config.args ?? process.argv.slice(2);
  const usage = usageOf(script, config.options ?? {}, required);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  try {
    return parseArgs(config);
  } catch (err) {
    process.stderr.write(`${script}: ${err instanceof Error ? err.message : String(err)}\n${usage}\n`);
    process.exit(2);
  }
}
