//! Training batches of the siamese network encoded in pieces on several threads
//! (`Siamese::with_chunks`): the loss and every gradient equal those of the batch encoded whole,
//! for the classifier's loss and the ranking loss, with and without a bag of words.

mod common;

use bitext_neural::backend::Threads;
use bitext_neural::rnn::CellKind;
use bitext_neural::siamese::{Pooling, Siamese, SiameseConfig};
use bitext_neural::train::backward;
use common::{assert_same_grads, cpu, grad_values, refs, scalar, tiny_siamese, toy_pairs};

#[test]
fn split_batches_give_the_gradients_of_the_whole_batch() {
    // 40 pairs are 80 sentences: up to five pieces of at least 16.
    let data = toy_pairs(40, 5);
    let (src, tgt) = (refs(&data.src), refs(&data.tgt));
    let labels: Vec<f32> = (0..src.len()).map(|i| (i % 3 != 0) as u8 as f32).collect();
    for (pooling, bag, ranking) in [
        (Pooling::Max, true, true),
        (Pooling::Last, false, false),
        (Pooling::Max, false, true),
    ] {
        let config = SiameseConfig {
            pooling,
            ..tiny_siamese(CellKind::Gru, false)
        }
        .with_encoder(|e| {
            e.bag = bag;
            e.bag_map = bag;
        });
        let model = Siamese::new(&config, 3, &cpu().autodiff()).unwrap();
        let model = if bag {
            let w = (0..config.table_rows())
                .map(|r| 0.5 + (r % 4) as f32)
                .collect();
            model.with_bag_weights(w).unwrap()
        } else {
            model
        };
        let run = |chunks: usize| {
            Threads(3)
                .install(|| {
                    let m = model.clone().with_chunks(chunks);
                    let loss = if ranking {
                        m.ranking_loss(&src, &tgt, 10.0, 0.1, 2, None)?
                    } else {
                        m.pair_loss(&src, &tgt, &labels, None)?
                    };
                    let value = scalar(loss.value.clone());
                    Ok((value, grad_values(&m, &backward(&m, loss)?)))
                })
                .unwrap()
        };
        let (v1, whole) = run(1);
        for chunks in [3, 0] {
            let (v, split) = run(chunks);
            let what = format!("{pooling:?}, bag {bag}, ranking {ranking}, {chunks} pieces");
            assert!(
                (v1 - v).abs() <= 1e-5 * v1.abs().max(1.0),
                "{what}: {v1} vs {v}"
            );
            let compared = assert_same_grads(&whole, &split, &what);
            assert!(compared >= 6, "{what}: only {compared} gradients compared");
        }
    }
}

/// `pieces: 0`: the first batch's pass timed whole and in pieces, the choice cached and read
/// back, and a model that names its pieces left as it is.
#[test]
fn measured_pieces_are_cached_and_explicit_pieces_kept() {
    use bitext_core::Rng;
    use bitext_core::tune::TuneCache;
    use bitext_neural::batch::Bucketing;
    use bitext_neural::siamese::SiameseTask;
    use bitext_neural::train::Task;

    let config = tiny_siamese(CellKind::Gru, false);
    let dir = tempfile::tempdir().unwrap();
    let cache = TuneCache::at(dir.path().join("auto.json"));
    let batching = Bucketing {
        max_items: 64,
        max_tokens: 64 * 16,
    };
    let mut task = SiameseTask::new(config, toy_pairs(40, 7), None, 1, batching, 3)
        .unwrap()
        .with_tune_cache(cache.clone());
    let batch = task.epoch_batches(1, &mut Rng::seed(1)).unwrap().remove(0);
    let model = || Siamese::new(&config, 3, &cpu().autodiff()).unwrap();
    let first = Threads(2)
        .install(|| task.tuned(model().with_chunks(0), &batch))
        .unwrap();
    assert!([1, 2].contains(&first.pieces()), "{}", first.pieces());
    let text = std::fs::read_to_string(cache.file().unwrap()).unwrap();
    assert!(text.contains("siamese-pieces"), "{text}");
    // Measured once: a later run reads the cache.
    std::fs::write(
        cache.file().unwrap(),
        text.replace(&format!("\"pieces\": {}", first.pieces()), "\"pieces\": 2"),
    )
    .unwrap();
    let again = Threads(2)
        .install(|| task.tuned(model().with_chunks(0), &batch))
        .unwrap();
    assert_eq!(again.pieces(), 2);
    // Named pieces are kept; one thread has nothing to measure.
    let named = Threads(2)
        .install(|| task.tuned(model().with_chunks(3), &batch))
        .unwrap();
    assert_eq!(named.pieces(), 3);
    let one = Threads(1)
        .install(|| task.tuned(model().with_chunks(0), &batch))
        .unwrap();
    assert_eq!(one.pieces(), 1);
}
