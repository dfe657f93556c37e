import { afterReadyForQuery, dataRows, EMPTY, errorResponse, readyForQuery, rollbackAll, scanAnswer, simpleQuery } from './pg-wire.ts';
import type { Client, SocketSession, Unit } from './socket-client.ts';
import { parseListen, READ_ONLY_AGAIN, readerUnitRefusal, settingsSql, TRANSACTION_READ_ONLY } from './socket-session-sql.ts';

// A client's turns on the embedded database's one session: its units run in order, its transaction
// keeps the session until it ends, yields when the node waits, and its settings never leak.

/** Runs a client's units, holding the session from a unit until the client is idle again. */
export async function runClient(s: SocketSession, c: Client): Promise<void> {
  const { pglite, raw } = s;
  c.running = true;
  try {
    while (c.units.length > 0 && !c.closed) {
      await s.exclusive(async () => {
        let changedSettings = false;
        if (c.settings !== '') {
          await raw(simpleQuery(c.settings));
          changedSettings = true;
        }
        try {
          for (;;) {
            const unit = c.units.shift();
            if (unit !== undefined) {
              c.unitBytes -= unit.data.length;
              if (c.socket.isPaused() && c.unitBytes <= s.maxMessageBytes / 2) c.socket.resume();
              if (overtime(s, c)) return await abortOvertime(s, c);
              const before = c.status;
              const started = Date.now();
              const out = await execute(s, c, unit);
              changedSettings ||= out.changedSettings;
              if (!c.closed) c.socket.write(out.data);
              if (c.status === 'I') c.txSince = undefined;
              else if (before === 'I') c.txSince = started;
            }
            if (c.closed) {
              // a client gone mid-transaction leaves nothing behind (Sync ends a half-sent extended query)
              if (c.status !== 'I') await raw(rollbackAll());
              return;
            }
            // idle: the session goes back to the node and the other clients
            if (c.status === 'I') return;
            if (c.units.length === 0) {
              const next = await nextUnit(s, c);
              if (next === 'overtime') return await abortOvertime(s, c);
              if (next === 'idle') {
                await raw(rollbackAll());
                s.fail(c, `idle in a transaction for more than ${s.idleInTransactionMs / 1000} s; rolled back to free the embedded database`, '25P03');
                return;
              }
            }
          }
        } finally {
          if (changedSettings) {
            // kept for the client's next turn, then cleared for everyone else
            if (!c.closed) {
              const rows = (await pglite.query<{ name: string; setting: string }>(`select name, setting from pg_settings where source = 'session'`)).rows;
              c.settings = settingsSql(new Map(rows.map((r) => [r.name, r.setting])));
            }
            await raw(simpleQuery('reset all'));
          } else if (c.user!.readOnly && c.closed) {
            // a reader dropped mid-transaction: its rollback restored what READ_ONLY_AGAIN set
            await raw(simpleQuery('reset default_transaction_read_only; reset standard_conforming_strings'));
          }
        }
      });
    }
  } catch (err) {
    s.onError?.(err as Error);
    s.fail(c, `embedded database: ${(err as Error).message}`);
  } finally {
    c.running = false;
  }
}

/** The client's transaction has had its time and the node waits for the session: the node's writes come first. */
const overtime = (s: SocketSession, c: Client): boolean => s.yieldRule.overtime(c.txSince);

async function abortOvertime(s: SocketSession, c: Client): Promise<void> {
  s.yieldRule.rolledBack();
  await s.raw(rollbackAll());
  c.status = 'I';
  s.fail(
    c,
    `transaction open for more than ${s.maxTransactionMs / 1000} s while idx-node waited to write; rolled back to let it write (the embedded database has one session: keep transactions short)`,
    '25P04',
  );
}

/** Waits for the client's next unit, up to the idle-in-transaction limit, or until its transaction must yield. */
function nextUnit(s: SocketSession, c: Client): Promise<'unit' | 'idle' | 'overtime'> {
  return new Promise((resolve) => {
    const done = (why: 'unit' | 'idle' | 'overtime') => {
      clearTimeout(timer);
      clearInterval(poll);
      c.wake = undefined;
      resolve(why);
    };
    const timer = setTimeout(() => done('idle'), s.idleInTransactionMs);
    // whether someone waits is asked, not told: a tenth of a second late at most
    const poll = setInterval(() => overtime(s, c) && done('overtime'), Math.min(100, s.maxTransactionMs));
    c.wake = () => done('unit');
    if (c.closed) c.wake();
  });
}

async function execute(s: SocketSession, c: Client, { data: unit, last, executes }: Unit): Promise<{ data: Buffer; changedSettings: boolean }> {
  if (c.user!.readOnly) {
    const refusal = readerUnitRefusal(unit, last, executes);
    if (refusal !== undefined) {
      // an answer the client can go on from, at the end of a query; otherwise it is dropped
      if ((last === 'S' || last === 'Q') && c.status !== undefined) {
        return { data: Buffer.concat([errorResponse('25006', refusal, 'ERROR'), readyForQuery(c.status)]), changedSettings: false };
      }
      s.fail(c, refusal, '25006');
      return { data: EMPTY, changedSettings: false };
    }
  }
  const listen = unit[0] === 0x51 /* Q */ ? parseListen(unit.subarray(5, unit.length - 1).toString('utf8')) : undefined;
  if (listen !== undefined) return { data: await s.channels.apply(c, listen), changedSettings: false };
  // A reader's query goes between two of ours, in the same call: before it, transactions it starts
  // are read-only again whatever it did before (not mid-pipeline, where a query would end the
  // pipeline's transaction); after it, whether the transaction it is in is read-only.
  const wrapped = c.user!.readOnly && (last === 'S' || last === 'Q');
  const before = wrapped && c.status !== undefined ? READ_ONLY_AGAIN : undefined;
  const after = wrapped ? TRANSACTION_READ_ONLY : undefined;
  let out = Buffer.from(await s.raw(before || after ? Buffer.concat([before ?? EMPTY, unit, after ?? EMPTY]) : unit));
  let check: Buffer | undefined;
  if (before) out = out.subarray(afterReadyForQuery(out, 1));
  if (after) {
    const cut = afterReadyForQuery(out, 1);
    check = out.subarray(cut);
    out = out.subarray(0, cut);
  }
  // Notifications reach listeners through onNotification; the bytes go to the client without them.
  const { data, status, changedSettings } = scanAnswer(out);
  c.status = status;
  if (check !== undefined && status === 'T' && dataRows(check)[0]?.[0] !== 'on') {
    // cannot have written yet: one statement per query, and none of them both opens a transaction and writes
    await s.raw(rollbackAll());
    c.status = 'I';
    s.fail(c, 'this login is read-only, and its transaction was not; rolled back', '25006');
    return { data: EMPTY, changedSettings };
  }
  return { data, changedSettings };
}
