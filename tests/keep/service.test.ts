import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { fakeHome } from './helpers.js';

/** `arborist keep --install`: the service files it would write, and where there is no service manager. */
describe('arborist keep --install', () => {
  it('--dry-run prints the systemd unit and the commands, and writes nothing', () => {
    const h = fakeHome();
    const r = cli(['keep', '--install', '--dry-run', '--service', 'systemd'], { env: h.env });
    expect(r.code, r.stderr).toBe(0);
    const unit = join(h.home, '.config', 'systemd', 'user', 'arborist-keep.service');
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(`would write ${unit}:`);
    expect(r.stdout).toContain(
      `  ExecStart="${process.execPath}" "${join(import.meta.dirname, '..', '..', 'bin', 'arborist')}" "keep" "--db" "${h.db}"\n`,
    );
    expect(r.stdout).toContain(`  Environment="ARBORIST_HOME=${h.env.ARBORIST_HOME}"\n`);
    expect(r.stdout).toContain('  RestartPreventExitStatus=2\n');
    expect(r.stdout).toContain('  WantedBy=default.target\n');
    expect(
      r.stdout.endsWith(
        'would run systemctl --user daemon-reload\nwould run systemctl --user enable --now arborist-keep.service\n',
      ),
    ).toBe(true);
    expect(existsSync(unit)).toBe(false);

    const un = cli(['keep', '--uninstall', '--dry-run', '--service', 'systemd'], { env: h.env });
    expect(un.stdout).toBe(
      `would run systemctl --user disable --now arborist-keep.service\nwould remove ${unit}\nwould run systemctl --user daemon-reload\n`,
    );
  });

  it('--dry-run for launchd prints the agent plist and the launchctl command', () => {
    const h = fakeHome();
    const r = cli(['keep', '--install', '--dry-run', '--service', 'launchd', '--json'], { env: h.env });
    expect(r.code).toBe(0);
    const plan = r.json();
    const path = join(h.home, 'Library', 'LaunchAgents', 'dev.arborist.keep.plist');
    expect(plan.write[0].path).toBe(path);
    expect(plan.write[0].content).toContain('<key>Label</key><string>dev.arborist.keep</string>');
    expect(plan.write[0].content).toContain(`    <string>${h.db}</string>\n`);
    expect(plan.run).toEqual([['launchctl', 'bootstrap', `gui/${process.getuid!()}`, path]]);
  });

  it('where there is no service manager it says so, prints a crontab and a tmux line, and installs nothing', () => {
    const h = fakeHome();
    const r = cli(['keep', '--install', '--service', 'none'], { env: h.env });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^no service manager here/);
    expect(r.stdout).toMatch(/\n {2}@reboot ARBORIST_HOME=\S+ \S+ \S+ keep --db \S+ >\/dev\/null 2>&1\n/);
    expect(r.stdout).toMatch(/\n {2}tmux new-session -d -s arborist-keep '/);
    expect(existsSync(join(h.home, '.config', 'systemd'))).toBe(false);
  });

  const userSystemd =
    process.platform === 'linux' &&
    spawnSync('systemctl', ['--user', 'show-environment'], { stdio: 'ignore' }).status === 0;
  // Skipped where no systemd user manager runs (containers, CI): `--dry-run` above checks what would be done.
  it.skipIf(!userSystemd)('installs, starts and uninstalls the systemd user unit', () => {
    const h = fakeHome();
    const env = { ...h.env, HOME: process.env.HOME, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR };
    const unit = join(process.env.HOME!, '.config', 'systemd', 'user', 'arborist-keep.service');
    if (existsSync(unit)) return; // the user's own keeper: never replaced by a test
    const r = cli(['keep', '--install'], { env });
    try {
      expect(r.code, r.stderr).toBe(0);
      expect(existsSync(unit)).toBe(true);
      expect(
        spawnSync('systemctl', ['--user', 'is-enabled', 'arborist-keep.service'], {
          encoding: 'utf8',
        }).stdout.trim(),
      ).toBe('enabled');
    } finally {
      const u = cli(['keep', '--uninstall'], { env });
      expect(u.code, u.stderr).toBe(0);
    }
    expect(existsSync(unit)).toBe(false);
  });
});
