/**
 * Vocabulary for the synthetic shard. Function words come first (the head of the Zipf curve); the content words
 * below are spread across the rest of the ranks between generated pseudo-words, so a query can hit a real word
 * that is common ("file"), middling ("lifetime") or rare.
 */
export const FUNCTION_WORDS = `the of and to a in is it you that for this with on be as are not can or if your
but have by at from an was will do use when what so which there would more all one how they should then their
them also like has we need just about into only other each any these than some because does may might could
here my out up over such most very where why both after before while same new no its been were those through
between without first two much well many get make way even still now then way own different another since`
  .split(/\s+/)
  .filter(Boolean);

export const CONTENT_WORDS = `file function value type error data code set time run return call change list
string number line example memory test case state key process object table query index node tree build version
thread lifetime borrow reference pointer struct trait module package import export class method field variable
loop array map hash cache buffer stream async await promise future task queue lock mutex channel message server
client request response header body status route path directory folder config option flag argument command shell
terminal script output input format parse token syntax compile compiler runtime library framework dependency
install update upgrade release branch commit merge rebase repository remote push pull diff patch conflict review
deploy container image volume network port socket connection session cookie token user account password login
permission role policy secret key certificate encryption signature checksum digest database schema migration
column row transaction commit rollback journal write read insert delete select join filter sort group order limit
offset cursor page pagination search match pattern regex prefix suffix range slice vector matrix tensor model
training inference gradient loss weight layer batch epoch dataset sample feature label prediction accuracy metric
benchmark latency throughput profile trace log debug warning panic exception stack heap allocation garbage
collector reference counting ownership lifetime scope closure callback handler event listener emitter signal
interrupt timeout retry backoff limit quota budget cost price invoice payment customer order product inventory
shipping address email phone notification template render component widget layout style theme color font pixel
screen window pane cursor keyboard mouse scroll resize terminal emulator escape sequence unicode encoding byte
character width grapheme emoji locale timezone date calendar schedule cron job worker pool cluster replica shard
partition leader follower consensus quorum election heartbeat failover backup restore snapshot archive retention
compaction checkpoint wal fsync durability isolation consistency availability latency bandwidth life lifecycle
lifespan lifetimes light lightweight line linear link linker lint linux listen literal little live load local
locate logic long lookup loose lower machine macro main maintain major manage manual mark market master match
math measure medium member merge mesh meta middle migrate mind minimal minor mirror miss mixed mobile mode modern
monitor month mount move multiple mutable native navigate nested neural nightly noise normal note null object
observe obvious offline online open operator optimize optional origin outer overflow overhead owner package
parallel parent partial pass paste peer pending perform persist phase pick pipeline plain plan platform plugin
point poll portable position positive post power practice precise prefer prepare present preserve pretty primary
print private probe problem produce program project proof property protocol proxy public publish pure purpose
quality question quick quote random rate raw reach react ready real reason recent record recover recursive reduce
refactor region register regular relative reliable remove rename repeat replace report represent require reset
resolve resource rest result reuse reverse rewind rich right risk robust root rotate round rule safe same sandbox
save scale scan second section secure seed segment selector semantic send sense separate sequence serial serve
service setup shadow shape share shared short side sign silent simple single size skip small smart snapshot soft
solid solution source space spawn special spec speed split spread stable stage standard start static step stop
storage store strategy strict strong structure style subject submit subtree success suggest summary support
surface swap switch symbol sync system tag target team tell term text theory thing think third through tight
title token tool topic total touch track trade traffic transform translate transport trigger trim trust tuple
turn tutorial typical undo union unique unit unsafe until upper usage useful valid verify view virtual visible
visit wait walk watch weak web week whole wide wildcard wire word work wrapper yield zero rust python typescript
javascript golang java kotlin swift haskell ocaml elixir erlang clojure scala ruby perl bash zsh fish vim emacs
neovim vscode git github gitlab docker kubernetes helm terraform ansible nginx apache postgres postgresql mysql
sqlite redis kafka rabbitmq elasticsearch lucene spark hadoop pandas numpy pytorch tensorflow jax react vue svelte
angular webpack vite esbuild babel eslint prettier biome vitest jest mocha pytest cargo npm yarn pnpm pip poetry
conda homebrew apt systemd cgroups namespace kernel driver firmware bios uefi grub boot partition filesystem ext4
btrfs zfs nfs samba ssh tls https dns dhcp tcp udp quic http websocket grpc protobuf json yaml toml xml csv parquet
arrow avro markdown latex pdf html css sass tailwind bootstrap figma sketch blender unity unreal godot opengl
vulkan metal directx shader texture mesh vertex fragment raytracing physics collision animation sprite audio
codec ffmpeg video frame bitrate stream subtitle caption playlist podcast garden recipe bread dough yeast flour
oven coffee espresso grinder bean roast travel flight hotel visa passport budget savings mortgage interest tax
invest stock bond index fund retirement pension health sleep exercise running marathon knee injury diet protein
vitamin doctor symptom allergy history empire war treaty revolution philosophy ethics logic argument fallacy
novel poem author chapter character plot theme grammar spelling translation french german spanish japanese
chinese italian vocabulary pronunciation guitar piano chord scale melody rhythm tempo harmony music album concert
camera lens aperture shutter exposure photo portrait landscape astronomy telescope planet orbit gravity quantum
particle energy entropy chemistry molecule protein enzyme cell gene evolution climate carbon solar battery
electric vehicle engine motor bicycle tire brake`
  .split(/\s+/)
  .filter(Boolean);

const ONSETS = [
  'b',
  'c',
  'd',
  'f',
  'g',
  'h',
  'j',
  'k',
  'l',
  'm',
  'n',
  'p',
  'r',
  's',
  't',
  'v',
  'w',
  'z',
  'br',
  'cr',
  'dr',
  'fl',
  'gr',
  'pl',
  'pr',
  'sk',
  'sl',
  'sp',
  'st',
  'tr',
  'ch',
  'sh',
  'th',
];
const NUCLEI = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'ee', 'io', 'ou', 'oa', 'y'];
const CODAS = ['', '', '', 'n', 'r', 'l', 's', 't', 'm', 'nd', 'rt', 'st', 'ck', 'ng', 'x'];

/** A pronounceable pseudo-word from a number: the same number always gives the same word. */
export function pseudoWord(n: number, syllables: number): string {
  let w = '';
  let x = n >>> 0;
  for (let i = 0; i < syllables; i++) {
    w += ONSETS[x % ONSETS.length];
    x = Math.floor(x / ONSETS.length) ^ (i * 2654435761);
    x >>>= 0;
    w += NUCLEI[x % NUCLEI.length];
    x = Math.floor(x / NUCLEI.length);
    if (i === syllables - 1) w += CODAS[x % CODAS.length];
    x = Math.imul(x ^ (x >>> 13), 0x5bd1e995) >>> 0;
    x = (x + n * 31 + i) >>> 0;
  }
  return w;
}

/**
 * The ranked vocabulary (rank 0 most frequent): function words, then real content words spread evenly between
 * pseudo-words, `size` words in all, no duplicates.
 */
export function buildVocabulary(size: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  const push = (w: string) => {
    if (!seen.has(w)) {
      seen.add(w);
      out.push(w);
    }
  };
  for (const w of FUNCTION_WORDS) push(w);
  const content = CONTENT_WORDS.filter((w) => !seen.has(w));
  const uniqueContent = [...new Set(content)];
  const rest = size - out.length;
  const stride = Math.max(1, rest / uniqueContent.length);
  let ci = 0;
  let p = 0;
  while (out.length < size) {
    const slot = out.length - FUNCTION_WORDS.length;
    if (ci < uniqueContent.length && slot >= Math.floor(ci * stride)) push(uniqueContent[ci++]);
    else push(pseudoWord(p++, 2 + (p % 3 === 0 ? 1 : 0)));
  }
  return out;
}
