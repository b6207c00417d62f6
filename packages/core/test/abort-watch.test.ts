import { abortWatch, unwatchAbort, watchAbort } from '@anytool/core/internal';
import { getEventListeners } from 'node:events';

describe('abortWatch', () => {
  it('puts one listener on a signal however many wait on it; a waiter that stopped is not told of the abort', () => {
    const controller = new AbortController();
    const heard: number[] = [];
    const stops = Array.from({ length: 100 }, (_, i) => abortWatch(controller.signal, () => heard.push(i)));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    for (const stop of stops.slice(1)) stop();
    controller.abort();
    expect(heard).toEqual([0]);
  });

  it('tells every waiter of the abort even when one throws, and reports that error as a warning', () => {
    const controller = new AbortController();
    const heard: string[] = [];
    abortWatch(controller.signal, () => heard.push('first'));
    abortWatch(controller.signal, () => {
      throw new Error('broken waiter');
    });
    abortWatch(controller.signal, () => heard.push('third'));
    const warn = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      controller.abort();
      expect(heard).toEqual(['first', 'third']);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]![0]).toContain('broken waiter');
      expect(warn.mock.calls[0]![1]).toMatchObject({ code: 'ANYTOOL_ABORT_WAITER' });
    } finally {
      warn.mockRestore();
    }
  });

  it('calls a waiter at once on a signal already aborted', () => {
    const heard: number[] = [];
    abortWatch(AbortSignal.abort(), () => heard.push(1));
    expect(heard).toEqual([1]);
  });

  it('watches a waiter object as it is: told once, not after it stopped, at once on a signal already aborted', () => {
    const controller = new AbortController();
    const heard: string[] = [];
    const waiter = (name: string) => ({ aborted: () => heard.push(name) });
    const stopped = waiter('stopped');
    watchAbort(controller.signal, waiter('kept'));
    watchAbort(controller.signal, stopped);
    abortWatch(controller.signal, () => heard.push('function'));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    unwatchAbort(controller.signal, stopped);
    controller.abort();
    controller.abort();
    expect(heard).toEqual(['kept', 'function']);
    watchAbort(controller.signal, waiter('late'));
    expect(heard).toEqual(['kept', 'function', 'late']);
  });
});
