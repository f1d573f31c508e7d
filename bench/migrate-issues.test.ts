/** The migrate-issues scenario's report logic: the step split from task-row samples, the CPU split, the figures. */
import { statTicks } from './cpu';
import { StepClock, cpuUsed, importFigures, taskState } from './scenarios/migrate-issues';

describe('migrate-issues', () => {
  it('gives the time up to each sample to the step that sample shows (a step is recorded when done)', () => {
    const clock = new StepClock();
    clock.observe('creating', 0);
    clock.observe('git', 500);
    clock.observe('issues', 1500);
    clock.observe('repo_comments', 1700);
    clock.observe('repo_comments', 2700);
    clock.observe('finishing', 2800);
    expect([...clock.seconds()]).toEqual([
      ['git', 0.5],
      ['issues', 1],
      ['repo_comments', 1.2],
      ['finishing', 0.1],
    ]);
  });

  it('names the task row’s state', () => {
    expect(taskState({ status: 1, step: '' })).toBe('queued');
    expect(taskState({ status: 2, step: '' })).toBe('claimed');
    expect(taskState({ status: 2, step: 'comments' })).toBe('comments');
    expect(taskState({ status: 5, step: 'comments' })).toBe('finishing');
  });

  it('counts CPU used by processes seen before and after only', () => {
    const used = cpuUsed(new Map([['gateway', 10], ['gone', 1]]), new Map([['gateway', 14.5], ['new', 3]]));
    expect([...used]).toEqual([['gateway', 4.5]]);
  });

  it('reads user + system ticks from /proc/<pid>/stat, whatever the command name holds', () => {
    const fields = ['S', ...Array.from({ length: 10 }, (_, i) => String(i)), '700', '45', '1', '2'];
    expect(statTicks(`123 (node (x) y) ${fields.join(' ')}`)).toBe(745);
  });

  it('reports rates over the wall time, the steps, and the CPU split largest first with shares', () => {
    const figures = importFigures({
      issues: 1000,
      comments: 2000,
      wallMs: 50_000,
      steps: new Map([['issues', 20], ['repo_comments', 30]]),
      cpu: new Map([['issues', 10], ['gateway', 30], ['hooks', 0]]),
    });
    const byName = new Map(figures.map((figure) => [`${figure.group}/${figure.name}`, figure]));
    expect(byName.get('result/issues/s')?.value).toBe(20);
    expect(byName.get('result/comments/s')?.value).toBe(40);
    expect(byName.get('result/wall time')?.value).toBe(50);
    expect(figures.filter((figure) => figure.group === 'time in step').map((figure) => figure.name)).toEqual(['issues', 'repo_comments']);
    expect(figures.filter((figure) => figure.group === 'cpu').map((figure) => [figure.name, figure.value, figure.unit])).toEqual([
      ['gateway', 30, 's (75 %)'],
      ['issues', 10, 's (25 %)'],
      ['total', 40, 's (0.80 cores busy on average)'],
    ]);
  });
});
