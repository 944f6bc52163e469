// The journal contract's sections keep the size their files state: the run's under 40 members, each handle's as
// counted in journal-run.ts. Counted by the TypeScript compiler over the sources, as a caller sees the types.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const journalDir = fileURLToPath(new URL('../../src/journal/', import.meta.url));

// One program for every count: store.ts reaches every section's file.
let program: ts.Program | undefined;

function memberCounts(file: string, names: readonly string[]): Record<string, number> {
  program ??= ts.createProgram([`${journalDir}store.ts`], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
  });
  const checker = program.getTypeChecker();
  const counts: Record<string, number> = {};
  ts.forEachChild(program.getSourceFile(file)!, (node) => {
    if (ts.isInterfaceDeclaration(node) && names.includes(node.name.text))
      counts[node.name.text] = checker.getPropertiesOfType(checker.getTypeAtLocation(node.name)).length;
  });
  return counts;
}

describe('the journal contract', () => {
  it("the run's section is under 40 members, as journal-run.ts states, and the sections add up to the store", () => {
    const run = `${journalDir}journal-run.ts`;
    const header = readFileSync(run, 'utf8');
    const counts = memberCounts(`${journalDir}store.ts`, ['JournalStore', 'JournalQueries']);
    const sections = {
      ...memberCounts(run, ['JournalRun', 'JournalRunReads']),
      ...memberCounts(`${journalDir}journal-reports.ts`, ['JournalReports']),
      ...memberCounts(`${journalDir}journal-operator.ts`, ['JournalOperator', 'JournalOperatorReads']),
      ...memberCounts(`${journalDir}settled-costs.ts`, ['JournalHistory', 'JournalHistoryReads']),
    };
    expect(sections.JournalRun).toBeLessThan(40);
    expect(header).toContain(`${sections.JournalRun} members`);
    expect(header).toContain(`(${sections.JournalRunReads}: the reads`);
    expect(counts.JournalStore).toBe(
      sections.JournalRun! + sections.JournalReports! + sections.JournalOperator! + sections.JournalHistory!,
    );
    expect(counts.JournalQueries).toBe(
      sections.JournalRunReads! +
        sections.JournalReports! +
        sections.JournalOperatorReads! +
        sections.JournalHistoryReads!,
    );
  });

  it('the handles a run holds keep the sizes journal-run.ts counts them at', () => {
    const header = readFileSync(`${journalDir}journal-run.ts`, 'utf8').replace(/\n\/\/ /g, ' ');
    const handles = {
      ...memberCounts(`${journalDir}runner-membership.ts`, ['RunnerMembership']),
      ...memberCounts(`${journalDir}coordination.ts`, ['Coordination']),
      ...memberCounts(`${journalDir}job-notices.ts`, ['JobNotices']),
      ...memberCounts(`${journalDir}journal-run.ts`, ['JournalCapabilities', 'JournalRun']),
      ...memberCounts(`${journalDir}ingest-writer.ts`, ['IngestWriter']),
    };
    const { RunnerMembership, Coordination, JobNotices, JournalCapabilities, IngestWriter, JournalRun } = handles;
    expect(header).toContain(`(${RunnerMembership}, ${Coordination}, ${JobNotices}, ${JournalCapabilities})`);
    expect(header).toContain(`(IngestWriter, ${IngestWriter})`);
    const total = JournalRun! + RunnerMembership! + Coordination! + JobNotices! + JournalCapabilities! + IngestWriter!;
    expect(header).toContain(`, ${total} (`);
  });
});
