import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { userHome } from '../import/walk.js';

/**
 * `arborist keep --install`: the keeper as a user service. A systemd user unit on Linux
 * (`~/.config/systemd/user/arborist-keep.service`, enabled and started with `systemctl --user`), a launchd agent on
 * macOS (`~/Library/LaunchAgents/dev.arborist.keep.plist`, loaded with `launchctl bootstrap gui/UID`). A plan is
 * made first (the files and their content, the commands), so `--dry-run` prints exactly what would be done; the
 * commands run without a shell, their arguments as they are.
 */

export type ServiceKind = 'systemd' | 'launchd' | 'none';

export const UNIT_NAME = 'arborist-keep.service';
export const LAUNCHD_LABEL = 'dev.arborist.keep';

/** The variables that say where the tools keep their histories, and arborist its own: the service gets them. */
const CARRIED_ENV = [
  'ARBORIST_HOME',
  'CLAUDE_CONFIG_DIR',
  'CODEX_HOME',
  'OPENCLAW_STATE_DIR',
  'OPENCLAW_HOME',
  'CLAWDBOT_STATE_DIR',
  'LLM_USER_PATH',
  'GEMINI_CLI_HOME',
  'COPILOT_HOME',
  'OPENCODE_DB',
  'PI_CODING_AGENT_DIR',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
];

export interface ServicePlan {
  kind: ServiceKind;
  /** Files written (install) or removed (uninstall; content empty). */
  write: { path: string; content: string }[];
  remove: string[];
  /** Commands run in order, each an argv (no shell). */
  run: string[][];
  /** Where there is no service manager: lines to put in a crontab or to start in tmux. */
  instead: string[];
}

/** The service manager this machine offers the user: a running systemd user manager, launchd, or none. */
export function detectService(): ServiceKind {
  if (process.platform === 'darwin') return 'launchd';
  if (process.platform !== 'linux') return 'none';
  // `systemctl --user` answers only where the user's manager runs (not in most containers, not over plain ssh
  // without lingering): show-environment is the cheapest question it must answer.
  const r = spawnSync('systemctl', ['--user', 'show-environment'], { stdio: 'ignore', timeout: 5000 });
  return r.status === 0 ? 'systemd' : 'none';
}

/** The command a service runs: this node, this arborist, `keep` on this shard. */
export function keepArgv(dbPath: string): string[] {
  let bin = process.argv[1] ?? 'arborist';
  try {
    bin = realpathSync(bin);
  } catch {
    // as given
  }
  return [process.execPath, bin, 'keep', '--db', dbPath];
}

function carried(env: NodeJS.ProcessEnv): [string, string][] {
  return CARRIED_ENV.filter((k) => env[k] !== undefined && env[k] !== '').map((k) => [k, env[k]!]);
}

/**
 * A systemd word: quoted, its backslashes, quotes and specifiers (%) escaped; in a command line `$` too, which
 * ExecStart= expands and Environment= does not (systemd.service(5) "Command lines", systemd.exec(5) Environment=).
 */
function systemdWord(s: string, command = true): string {
  const q = s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%');
  return `"${command ? q.replace(/\$/g, '$$$$') : q}"`;
}

function xml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A POSIX shell word, for the crontab and tmux lines the user copies. */
function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export function systemdUnit(argv: string[], env: NodeJS.ProcessEnv): string {
  const lines = [
    '# Written by `arborist keep --install`; `arborist keep --uninstall` removes it.',
    '[Unit]',
    'Description=arborist keep: every AI conversation turn into the arborist shard as it is written',
    '',
    '[Service]',
    `ExecStart=${argv.map((a) => systemdWord(a)).join(' ')}`,
    ...carried(env).map(([k, v]) => `Environment=${systemdWord(`${k}=${v}`, false)}`),
    // Exit 2 is a second keeper (or a usage error): restarting it would only say so again.
    'Restart=on-failure',
    'RestartSec=30',
    'RestartPreventExitStatus=2',
    'Nice=10',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ];
  return lines.join('\n');
}

export function launchdPlist(argv: string[], env: NodeJS.ProcessEnv): string {
  const vars = carried(env);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    '<dict>',
    `  <key>Label</key><string>${LAUNCHD_LABEL}</string>`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...argv.map((a) => `    <string>${xml(a)}</string>`),
    '  </array>',
    ...(vars.length > 0
      ? [
          '  <key>EnvironmentVariables</key>',
          '  <dict>',
          ...vars.map(([k, v]) => `    <key>${xml(k)}</key><string>${xml(v)}</string>`),
          '  </dict>',
        ]
      : []),
    '  <key>RunAtLoad</key><true/>',
    // Started again when it fails, not when it ends cleanly (a SIGTERM from launchctl).
    '  <key>KeepAlive</key><dict><key>SuccessfulExit</key><false/></dict>',
    '  <key>ProcessType</key><string>Background</string>',
    '</dict>',
    '</plist>',
    '',
  ];
  return lines.join('\n');
}

export function unitPath(env: NodeJS.ProcessEnv): string {
  const config =
    env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(userHome(env), '.config');
  return join(config, 'systemd', 'user', UNIT_NAME);
}

export function plistPath(env: NodeJS.ProcessEnv): string {
  return join(userHome(env), 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
}

/** What installing (or uninstalling) does on a machine with `kind`. */
export function servicePlan(
  kind: ServiceKind,
  action: 'install' | 'uninstall',
  dbPath: string,
  env: NodeJS.ProcessEnv,
): ServicePlan {
  const argv = keepArgv(dbPath);
  const plan: ServicePlan = { kind, write: [], remove: [], run: [], instead: [] };
  if (kind === 'systemd') {
    const path = unitPath(env);
    if (action === 'install') {
      plan.write.push({ path, content: systemdUnit(argv, env) });
      plan.run.push(
        ['systemctl', '--user', 'daemon-reload'],
        ['systemctl', '--user', 'enable', '--now', UNIT_NAME],
      );
    } else {
      plan.run.push(['systemctl', '--user', 'disable', '--now', UNIT_NAME]);
      plan.remove.push(path);
      plan.run.push(['systemctl', '--user', 'daemon-reload']);
    }
  } else if (kind === 'launchd') {
    const path = plistPath(env);
    const domain = `gui/${process.getuid?.() ?? 0}`;
    if (action === 'install') {
      plan.write.push({ path, content: launchdPlist(argv, env) });
      plan.run.push(['launchctl', 'bootstrap', domain, path]);
    } else {
      plan.run.push(['launchctl', 'bootout', `${domain}/${LAUNCHD_LABEL}`]);
      plan.remove.push(path);
    }
  } else {
    const vars = carried(env).map(([k, v]) => `${k}=${shellWord(v)} `);
    const cmd = `${vars.join('')}${argv.map(shellWord).join(' ')}`;
    plan.instead.push(
      `@reboot ${cmd} >/dev/null 2>&1`,
      `tmux new-session -d -s arborist-keep ${shellWord(cmd)}`,
    );
  }
  return plan;
}

export interface CommandRun {
  argv: string[];
  status: number | null;
  stderr: string;
}

/**
 * Carries a plan out: files written, commands run (without a shell), files removed after the command that stops
 * the service. Every step is said; a command that fails does not stop the others (uninstalling a half-installed
 * service still removes its file), the caller tells from the runs whether all went well.
 */
export function carryOut(plan: ServicePlan, onStep: (what: string) => void): CommandRun[] {
  for (const f of plan.write) {
    mkdirSync(dirname(f.path), { recursive: true });
    writeFileSync(f.path, f.content);
    onStep(`wrote ${f.path}`);
  }
  const runs: CommandRun[] = [];
  // Uninstall: the service is stopped (first command) before its file goes, and reloaded after.
  const removeAfter = plan.remove.length > 0 ? 1 : Number.POSITIVE_INFINITY;
  plan.run.forEach((argv, i) => {
    if (i === removeAfter) removeFiles(plan.remove, onStep);
    const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', timeout: 30_000 });
    runs.push({ argv, status: r.status, stderr: (r.stderr ?? r.error?.message ?? '').trim() });
    onStep(`ran ${argv.join(' ')} (exit ${r.status ?? r.error?.message ?? 'none'})`);
  });
  if (plan.run.length <= removeAfter) removeFiles(plan.remove, onStep);
  return runs;
}

function removeFiles(paths: string[], onStep: (what: string) => void): void {
  for (const p of paths)
    if (existsSync(p)) {
      rmSync(p);
      onStep(`removed ${p}`);
    }
}
