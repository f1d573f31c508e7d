import { MIB, statusField, watchPeak } from './memory';

describe('statusField', () => {
  it('reads a kB field of /proc/<pid>/status in bytes', () => {
    const status = 'Name:\tnode\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\n';
    expect(statusField(status, 'VmRSS')).toBe(100 * MIB);
    expect(statusField(status, 'VmHWM')).toBe(200 * MIB);
    expect(() => statusField('Name:\tnode\n', 'VmRSS')).toThrow('no VmRSS');
  });
});

describe('watchPeak', () => {
  it('starts from the current size and sees a peak that is already gone', () => {
    const watch = watchPeak(process.pid);
    // Above glibc's largest mmap threshold (32 MiB), so fresh pages: memory freed earlier cannot absorb it.
    expect(Buffer.alloc(64 * MIB, 1).length).toBe(64 * MIB);
    const { startBytes, peakBytes } = watch.read();
    expect(startBytes).toBeGreaterThan(0);
    expect(peakBytes - startBytes).toBeGreaterThan(56 * MIB);
  });
});
