//! One side of a batch through the aligner's network (embedding lookup, recurrence, pooled
//! states, n-gram convolutions and bag into the sentence vector, with deferred gradients on
//! an autodiff device), and both sides of a training batch, on two threads when the sides
//! are split.

use bitext_core::Rng;
use bitext_encode::Side;

use crate::aligner::Aligner;
use crate::batch::PackedBatch;
use crate::encoding::with_bag;
use crate::error::{Error, Result};
use crate::init::int1;
use crate::layers::dropout;
use crate::train::Deferred;
use crate::train::split::parallel_stage;

use super::matrix::{Side3, padded};

impl Aligner {
    /// One side of a batch with its word states; deferred gradients on an autodiff device.
    /// With `spare_words` also [`Side3::ranked`]: the sentence vectors again, equal in value,
    /// through which a loss's gradient reaches the bag, its map, `P` and the n-gram
    /// convolutions but not the pooled word states, so not the recurrent encoder or its
    /// inputs (a sentence-level term that is not to move the word states the word labels
    /// read). `v + (h̄ − h)·P_h`, with `h` the pooled states, `h̄` the same values detached
    /// and `P_h` the rows of `P` that project them: its gradient with respect to `h` is zero,
    /// with respect to everything else that of `v`.
    ///
    /// # Errors
    /// As [`Aligner::loss`]; [`Error::Config`] for `spare_words` on a network without a bag.
    pub(super) fn side_states(
        &self,
        seqs: &[&[u32]],
        side: Side,
        rng: Option<&mut Rng>,
        spare_words: bool,
    ) -> Result<Side3> {
        self.check_ids(seqs, side)?;
        if spare_words && self.src_bag.is_none() {
            return Err(Error::Config(
                "a term that spares the word states needs a bag in the sentence vector: with \
                 the pooled states alone it would train nothing"
                    .into(),
            ));
        }
        let (emb, rnn, bag, _) = self.parts(side);
        let batch = PackedBatch::new(seqs)?;
        // Rows of one id are equal unless dropout draws masks: n-gram projections by id.
        let by_id = self.bag_table.is_some() || rng.is_none() || self.dropout == 0.0;
        let deferred = emb.weight.device().is_autodiff();
        let (x, out, grads) = if deferred {
            let (x, eg) = emb.lookup_deferred(&batch, self.dropout, rng)?;
            let (out, ig) = rnn.forward_deferred(x.clone(), batch.batch_sizes(), true);
            (x, out, Some((ig, eg)))
        } else {
            let x = dropout(emb.lookup(&batch)?, self.dropout, rng);
            (x.clone(), rnn.forward(x, batch.batch_sizes(), true), None)
        };
        let device = out.last.device();
        let states = padded(&out, &batch);
        let own = self.bag_rows(&batch)?;
        let words = self.pooled(&out);
        let pooled = self.with_ngrams(
            side,
            words.clone(),
            (&x, &own),
            &batch,
            (by_id, deferred),
            None,
        );
        let (v, stage) = with_bag(bag, pooled, (x, own), &batch, grads, self.frozen_embeddings);
        let order = int1(batch.position(), &device);
        let ranked = match bag.filter(|_| spare_words) {
            Some(bag) => {
                let [h, d] = [words.dims()[1], bag.proj.dims()[1]];
                let p_h = bag.proj.val().slice([0..h, 0..d]);
                let r = v.clone() + (words.clone().detach() - words).matmul(p_h);
                Some(r.select(0, order.clone()))
            }
            None => None,
        };
        let vectors = v.select(0, order);
        Ok(Side3 {
            states,
            vectors,
            ranked,
            lengths: seqs.iter().map(|s| s.len()).collect(),
            stage,
        })
    }

    /// Both sides of a training batch and the deferred stages of their gradients. The source
    /// side draws its dropout masks from `rng`, the target side from a generator seeded by
    /// it. On an autodiff device with split sides the two encoders run on two threads and are
    /// cut off the loss ([`Cut`]): one stage back-propagates both, in parallel.
    /// With `spare_words`, each side has its [`Side3::ranked`] vectors too.
    pub(super) fn both_sides(
        &self,
        src: &[&[u32]],
        tgt: &[&[u32]],
        rng: Option<&mut Rng>,
        spare_words: bool,
    ) -> Result<(Side3, Side3, Vec<Deferred>)> {
        let (rs, mut rt) = match rng {
            Some(r) => {
                let t = Rng::seed(r.next_u64());
                (Some(r), Some(t))
            }
            None => (None, None),
        };
        if !(self.split_sides && self.src_embedding.weight.device().is_autodiff()) {
            let mut s = self.side_states(src, Side::Source, rs, spare_words)?;
            let mut t = self.side_states(tgt, Side::Target, rt.as_mut(), spare_words)?;
            let stages = s.stage.take().into_iter().chain(t.stage.take()).collect();
            return Ok((s, t, stages));
        }
        let (s, t) = rayon::join(
            || self.side_states(src, Side::Source, rs, spare_words),
            || self.side_states(tgt, Side::Target, rt.as_mut(), spare_words),
        );
        let (s, cs) = s?.cut(
            &self.src_encoder,
            self.src_bag.as_ref(),
            self.src_ngrams.as_ref(),
        );
        let (t, ct) = t?.cut(
            &self.tgt_encoder,
            self.tgt_bag.as_ref(),
            self.tgt_ngrams.as_ref(),
        );
        Ok((s, t, vec![parallel_stage(vec![cs, ct])]))
    }
}
