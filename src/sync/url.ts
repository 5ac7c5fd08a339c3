import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { ArboristError } from '../store/index.js';
import { hasUnsafe, oneLine } from '../text/sanitize.js';

/**
 * The URLs a sync remote may have (docs/sync.md, "Remote URLs"): git's ssh forms (`host:path`, `ssh://`), `https://`,
 * `file:///` and a local path. Everything else git would take is refused: `X::` runs a remote helper (`ext::` runs a
 * command), `http://` and `git://` carry every conversation unencrypted, an unknown `X://` runs git-remote-X. Checked
 * by form only, never by contacting the remote (it may be offline); a local path is made absolute (git reads a
 * relative one from the folder it runs in, and sync runs from anywhere) and must exist.
 */

const ACCEPTED = 'use host:path, ssh://, https://, file:/// or a local path';

/** A transport name before `::` or `://` as git reads one (git/git url.c, is_urlschemechar: a digit may lead). */
const SCHEME = /^([A-Za-z0-9][A-Za-z0-9+.-]*)(::|:\/\/)/;

/**
 * A URL, or a text quoting one, as arborist shows it (`remote list`, its messages, git's): a password replaced by `***`, and an https URL's whole
 * user part too, which is often a token (`https://ghp_...@github.com/...`). The mirror's git config keeps the URL
 * as given; a screen, a tmux scrollback or a log does not need the secret.
 */
export function redactedUrl(url: string): string {
  // Anywhere in the text, so that git's own messages quoting a URL are cleaned the same way.
  return url.replace(/([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/@\s'"]*)@/g, (_all, scheme: string, user: string) =>
    scheme.toLowerCase() === 'https://' ? `${scheme}***@` : `${scheme}${user.replace(/:.*$/, ':***')}@`,
  );
}

function shown(url: string): string {
  const s = oneLine(redactedUrl(url));
  return s.length > 80 ? `${s.slice(0, 79)}…` : s;
}

/** Why the URL's form is refused, or null; `path` is set for a local path (absolute or not) or a file:// one. */
function formProblem(url: string): { why: string | null; path?: string } {
  if (url === '') return { why: 'is empty' };
  if (hasUnsafe(url)) return { why: 'holds a control character (a line break, tab, escape or bidi mark)' };
  // git would read it as an option wherever it is an argument (git itself blocks such hosts and paths).
  if (url.startsWith('-')) return { why: "starts with '-'" };
  const m = SCHEME.exec(url);
  if (m && m[2] === '::')
    return {
      why:
        m[1] === 'ext'
          ? "runs a command (git's ext:: transport)"
          : `names a git remote helper (${m[1]}::), which arborist does not run`,
    };
  if (m) {
    const scheme = m[1];
    if (scheme === 'http' || scheme === 'git')
      return { why: `is not encrypted (${scheme}://): use https:// or ssh` };
    if (scheme === 'file') {
      const path = url.slice('file://'.length);
      return path.startsWith('/')
        ? { why: null, path }
        : { why: 'file:// needs an absolute path (file:///PATH)' };
    }
    if (scheme !== 'ssh' && scheme !== 'https')
      return { why: `uses transport ${scheme}://, which is not one arborist uses` };
    // [user@]host[:port] up to the first '/'.
    const authority = url.slice(m[0].length).split('/')[0];
    const hostPart = authority.slice(authority.lastIndexOf('@') + 1);
    if (hostPart === '' || hostPart.startsWith(':')) return { why: 'has no host' };
    if (hostPart.startsWith('-')) return { why: "host starts with '-'" };
    try {
      new URL(url);
    } catch {
      return { why: 'is not a valid URL' };
    }
    return { why: null };
  }
  // git's scp-like form: a ':' with no '/' before it (git/git url.c, url_is_local_not_ssh; connect.c in older git).
  const colon = url.indexOf(':');
  const slash = url.indexOf('/');
  if (colon >= 0 && (slash < 0 || colon < slash)) {
    // [user@]host:path, or [user@][host]:path (an IPv6 address): the ':' after the brackets (git's host_end).
    const at = url.indexOf('@[');
    const start = at >= 0 ? at + 1 : 0;
    const close = url[start] === '[' ? url.indexOf(']', start) : -1;
    const sep = url.indexOf(':', Math.max(close, 0));
    const hostPart = sep < 0 ? url : url.slice(0, sep);
    const path = sep < 0 ? '' : url.slice(sep + 1);
    const bare = hostPart.slice(hostPart.lastIndexOf('@') + 1);
    if (bare === '' || bare === '[]') return { why: "has no host before ':'" };
    if (bare.startsWith('-')) return { why: "host starts with '-'" };
    if (path === '') return { why: "has no path after ':'" };
    if (path.startsWith('-')) return { why: "path starts with '-'" };
    return { why: null };
  }
  return { why: null, path: url };
}

function refused(url: string, why: string, kind: 'usage' | 'input', prefix = ''): ArboristError {
  return new ArboristError(kind, `${prefix}remote URL '${shown(url)}' ${why}; ${ACCEPTED}`);
}

/** The URL to store for `sync remote add`: checked, a local path made absolute; refused with one usage line. */
export function urlToStore(url: string, cwd: string): string {
  const form = formProblem(url);
  if (form.why !== null) throw refused(url, form.why, 'usage');
  if (form.path === undefined) return url;
  const abs = resolve(cwd, form.path);
  let dir = false;
  try {
    dir = statSync(abs).isDirectory();
  } catch {
    dir = false;
  }
  if (!dir)
    throw refused(
      url,
      'is not an existing folder (a local remote is a repository made first: git init --bare PATH; a drive not mounted is mounted first)',
      'usage',
    );
  // file:// is kept as written (its path is absolute already); a path is stored absolute.
  return url.startsWith('file://') ? url : abs;
}

/**
 * A stored URL checked before git is run with it: the mirror's config may hold one arborist never added (a hand
 * edit, an older arborist). By form only: a missing folder is git's to say.
 */
export function checkStoredUrl(remote: string, url: string): void {
  const form = formProblem(url);
  const prefix = `sync remote ${remote}: `;
  if (form.why !== null) throw refused(url, form.why, 'input', prefix);
  if (form.path !== undefined && !isAbsolute(form.path))
    throw new ArboristError(
      'input',
      `${prefix}remote URL '${shown(url)}' is a relative path, which git reads from the folder sync runs in: remove the remote and add it again (arborist stores the absolute path)`,
    );
}
