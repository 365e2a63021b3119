//! How many requests are in flight at once, adapted to the server's pace.
//!
//! A request that gets no answer within the time-out says that the server,
//! or the machine the run shares with it, is busier than the run assumed:
//! the run then halves how many requests it keeps in flight (once per
//! burst: every request in flight when the server stalled times out
//! together) and grows back by one for every so many answers, the way TCP
//! backs off. A late answer is waited for again, never judged as the
//! server's answer to a rule.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::{Semaphore, SemaphorePermit};

/// At most so many requests in flight, fewer after time-outs.
#[derive(Debug)]
pub struct Concurrency {
    slots: Semaphore,
    /// Permits to retire as they come back (a shrink owes them).
    debt: AtomicUsize,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    /// What the run was asked for (`--concurrency`).
    max: usize,
    /// What it allows now.
    now: usize,
    /// Answers since the last change of `now`.
    answered: usize,
    /// When `now` was last halved: one burst of time-outs halves it once.
    last_cut: Option<std::time::Instant>,
    /// Time-outs seen, for the report.
    timed_out: usize,
    /// Time-outs since the last answer.
    in_a_row: usize,
    /// When the last answer came (the start, before any).
    last_answer: std::time::Instant,
}

/// Time-outs in a row, over at least [`SILENT_TIMEOUTS`] time-outs' time,
/// after which the server is taken to answer nothing: the run stops
/// sending rather than wait a time-out for every request it has left.
const SILENT_IN_A_ROW: usize = 12;

/// See [`SILENT_IN_A_ROW`]: in time-outs.
const SILENT_TIMEOUTS: u32 = 4;

/// Time-outs within this long of a halving belong to the same burst.
const BURST: Duration = Duration::from_secs(1);

/// A slot in flight; given back (or retired, while a shrink is owed) when
/// dropped.
#[derive(Debug)]
pub struct Slot<'a> {
    permit: Option<SemaphorePermit<'a>>,
    owner: &'a Concurrency,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let Some(permit) = self.permit.take() else {
            return;
        };
        let owed = self
            .owner
            .debt
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |d| d.checked_sub(1));
        match owed {
            Ok(_) => permit.forget(),
            Err(_) => drop(permit),
        }
    }
}

impl Concurrency {
    pub fn new(max: usize) -> Self {
        let max = max.max(1);
        Concurrency {
            slots: Semaphore::new(max),
            debt: AtomicUsize::new(0),
            state: Mutex::new(State {
                max,
                now: max,
                answered: 0,
                last_cut: None,
                timed_out: 0,
                in_a_row: 0,
                last_answer: std::time::Instant::now(),
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits for a slot.
    pub async fn acquire(&self) -> Slot<'_> {
        // Never closed; without a permit only the cap would lift.
        Slot {
            permit: self.slots.acquire().await.ok(),
            owner: self,
        }
    }

    /// A request timed out: halve what is in flight (once per burst), at
    /// least one.
    pub fn timed_out(&self) {
        self.timed_out_at(std::time::Instant::now());
    }

    fn timed_out_at(&self, now: std::time::Instant) {
        let mut s = self.lock();
        s.timed_out += 1;
        s.in_a_row += 1;
        if s.last_cut
            .is_some_and(|t| now.saturating_duration_since(t) < BURST)
        {
            return;
        }
        s.last_cut = Some(now);
        s.answered = 0;
        let target = (s.now / 2).max(1);
        let cut = s.now - target;
        s.now = target;
        drop(s);
        // Free slots go at once; the rest as they come back.
        let mut owed = cut;
        while owed > 0 {
            match self.slots.try_acquire() {
                Ok(p) => {
                    p.forget();
                    owed -= 1;
                }
                Err(_) => break,
            }
        }
        self.debt.fetch_add(owed, Ordering::AcqRel);
    }

    /// A request was answered: after as many answers as are allowed in
    /// flight, one more is allowed, up to the run's own.
    pub fn answered(&self) {
        let mut s = self.lock();
        s.in_a_row = 0;
        s.last_answer = std::time::Instant::now();
        if s.now >= s.max {
            return;
        }
        s.answered += 1;
        if s.answered < s.now {
            return;
        }
        s.answered = 0;
        s.now += 1;
        drop(s);
        let repaid = self
            .debt
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |d| d.checked_sub(1));
        if repaid.is_err() {
            self.slots.add_permits(1);
        }
    }

    /// Why the server is taken to answer nothing, once it has let
    /// [`SILENT_IN_A_ROW`] requests in a row time out over at least
    /// [`SILENT_TIMEOUTS`] time-outs (`timeout` each) since its last answer.
    pub fn silent(&self, timeout: std::time::Duration) -> Option<String> {
        let s = self.lock();
        let since = s.last_answer.elapsed();
        (s.in_a_row >= SILENT_IN_A_ROW && since >= timeout * SILENT_TIMEOUTS).then(|| {
            format!(
                "the server answered none of the last {} requests within the time-out ({} ms), for {} s",
                s.in_a_row,
                timeout.as_millis(),
                since.as_secs()
            )
        })
    }

    /// Requests allowed in flight now, and time-outs seen so far.
    pub fn now(&self) -> (usize, usize) {
        let s = self.lock();
        (s.now, s.timed_out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_time_out_halves_the_slots_once_per_burst_and_answers_grow_them_back() {
        let c = Concurrency::new(8);
        let at = std::time::Instant::now();
        c.timed_out_at(at);
        c.timed_out_at(at + BURST / 2);
        assert_eq!(c.now(), (4, 2));
        assert_eq!(c.slots.available_permits(), 4);
        // Four in flight: a fifth waits.
        let held: Vec<_> = futures_take(&c, 4).await;
        assert!(c.slots.try_acquire().is_err());
        drop(held);
        c.timed_out_at(at + BURST * 2);
        assert_eq!(c.now(), (2, 3));
        for _ in 0..2 {
            c.answered();
        }
        assert_eq!(c.now().0, 3);
        assert_eq!(c.slots.available_permits(), 3);
    }

    #[tokio::test]
    async fn slots_in_flight_when_it_shrinks_are_retired_as_they_come_back() {
        let c = Concurrency::new(4);
        let held = futures_take(&c, 4).await;
        c.timed_out();
        assert_eq!(c.now().0, 2);
        drop(held);
        assert_eq!(c.slots.available_permits(), 2);
        assert_eq!(c.debt.load(Ordering::Acquire), 0);
    }

    async fn futures_take(c: &Concurrency, n: usize) -> Vec<Slot<'_>> {
        let mut held = Vec::new();
        for _ in 0..n {
            held.push(c.acquire().await);
        }
        held
    }
}
