//! The clock-synchronisation transport over MPI point-to-point messages.

use crate::clock::{Clock, Transport};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Duration;

/// Tag of clock-synchronisation messages, apart from anything else the run sends.
const SYNC_TAG: i32 = 7001;
/// Every message is padded to this many f64, so receives need no probe for the length.
const MSG_LEN: usize = crate::clock::MAX_MSG_LEN;

/// [`Transport`] over an MPI communicator and a clock.
pub struct MpiTransport<'a> {
    pub comm: &'a SimpleCommunicator,
    pub clock: &'a dyn Clock,
}

impl Transport for MpiTransport<'_> {
    fn rank(&self) -> usize {
        self.comm.rank() as usize
    }

    fn size(&self) -> usize {
        self.comm.size() as usize
    }

    fn now(&self) -> f64 {
        self.clock.now()
    }

    fn send(&self, to: usize, msg: &[f64]) {
        let mut buf = [0.0f64; MSG_LEN];
        buf[..msg.len()].copy_from_slice(msg);
        self.comm
            .process_at_rank(to as i32)
            .send_with_tag(&buf[..], SYNC_TAG);
    }

    fn recv(&self, from: usize) -> Vec<f64> {
        let mut buf = [0.0f64; MSG_LEN];
        self.comm
            .process_at_rank(from as i32)
            .receive_into_with_tag(&mut buf[..], SYNC_TAG);
        buf.to_vec()
    }

    fn recv_idle(&self, from: usize) -> Vec<f64> {
        let peer = self.comm.process_at_rank(from as i32);
        // Probe with sleeps so an idle rank leaves the CPU to the pair that is measuring.
        while peer.immediate_probe_with_tag(SYNC_TAG).is_none() {
            std::thread::sleep(Duration::from_micros(100));
        }
        self.recv(from)
    }
}

/// `MPI_Wtime` as a [`Clock`].
#[derive(Debug, Default, Clone, Copy)]
pub struct WtimeClock;

impl Clock for WtimeClock {
    fn now(&self) -> f64 {
        mpi::time()
    }
    fn resolution_s(&self) -> f64 {
        mpi::time_resolution()
    }
    fn name(&self) -> &'static str {
        "wtime"
    }
}
