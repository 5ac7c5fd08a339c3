/**
 * The generated text of the import benchmarks' corpora (bench/claude-corpus.ts, bench/mixed-corpus.ts): words drawn
 * from the vocabulary (common ones more often), ids, and tool results sized around a target. Deterministic for a
 * seed: every draw comes from the one Rng given.
 */
import type { Rng } from './rng.js';

export interface CorpusText {
  words(n: number): string;
  uuid(): string;
  /** A tool result: mostly around `resultBytes`, one in ten a file read ten times the size. */
  resultText(): string;
}

export function corpusText(rng: Rng, vocab: readonly string[], resultBytes: number): CorpusText {
  const words = (n: number): string => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(vocab[Math.floor(vocab.length * rng.float() ** 2)]);
    return out.join(' ');
  };
  const uuid = (): string => {
    const h = () => (rng.u32() >>> 0).toString(16).padStart(8, '0');
    const a = h() + h() + h() + h();
    return `${a.slice(0, 8)}-${a.slice(8, 12)}-4${a.slice(13, 16)}-a${a.slice(17, 20)}-${a.slice(20, 32)}`;
  };
  const resultText = (): string => {
    const target = rng.chance(0.1) ? resultBytes * 10 : Math.round(resultBytes * (0.3 + rng.float()));
    const lines: string[] = [];
    let size = 0;
    while (size < target) {
      const l = `${String(lines.length + 1).padStart(5)}  ${words(8 + rng.int(0, 8))}`;
      lines.push(l);
      size += l.length + 1;
    }
    return lines.join('\n');
  };
  return { words, uuid, resultText };
}
