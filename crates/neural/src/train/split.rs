//! Back-propagation of independent sub-graphs on their own threads.
//!
//! burn's autodiff runs one graph's backward pass on one thread, and a model whose two
//! encoders (source and target, with their own parameters) meet only in the loss has one
//! graph. Their recurrences are long chains of small products (a batch of 32 rows is too small
//! for a matrix product to split over threads), so a second core stays idle. [`Cut`] detaches
//! an encoder's outputs into fresh leaves that the rest of the loss uses; the loss's own
//! backward pass then stops at those leaves, and the stage of [`parallel_stage`] reads their
//! gradients `g` and back-propagates `Σ sum(output ⊙ g)` through every cut sub-graph at once
//! (`rayon::join`), each into its own gradients, running each sub-graph's own deferred stage
//! there. The gradients are those of the whole graph: the chain rule through a cut is exactly
//! this product.

use burn::module::{Module, ModuleMapper, ModuleVisitor, Param};
use burn::tensor::{Gradients, Tensor};

use super::{Deferred, ParamGrad};
use crate::error::{Error, Result};

/// Takes a float parameter's gradient out of a sub-graph's gradients (the parameter's own
/// tensor: any operation on it, even a reshape, would be another node).
type ParamTensor = Box<dyn FnOnce(&mut Gradients) -> Result<Option<ParamGrad>> + Send>;

struct Collect(Vec<ParamTensor>);

impl ModuleVisitor for Collect {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let (id, t) = (param.id, param.val());
        self.0.push(Box::new(move |grads| {
            let Some(g) = t.grad_remove(grads) else {
                return Ok(None);
            };
            let d = g.dims();
            match D {
                1 => Ok(Some(ParamGrad::Rank1(id, g.reshape([d[0]])))),
                2 => Ok(Some(ParamGrad::Rank2(id, g.reshape([d[0], d[1]])))),
                _ => Err(Error::Config(format!(
                    "parameter {id} of rank {D} in a cut sub-graph: only ranks 1 and 2 are \
                     supported"
                ))),
            }
        }));
    }
}

/// An encoder's sub-graph cut off the loss: its outputs on the sub-graph, the parameters
/// whose gradients it yields, and its own deferred stage.
pub struct Cut {
    outputs: Vec<Tensor<2>>,
    leaves: Vec<Tensor<2>>,
    params: Vec<ParamTensor>,
    stage: Option<Deferred>,
}

impl std::fmt::Debug for Cut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cut")
            .field("outputs", &self.outputs.len())
            .field("params", &self.params.len())
            .finish_non_exhaustive()
    }
}

impl Cut {
    /// Cut `outputs` (computed by `module` on an autodiff device, with the deferred `stage` of
    /// that computation) off the graph; returns the cut and the detached copies the loss is to
    /// be computed from, in the same order.
    pub fn new<M: Module>(
        module: &M,
        outputs: Vec<Tensor<2>>,
        stage: Option<Deferred>,
    ) -> (Self, Vec<Tensor<2>>) {
        let leaves: Vec<Tensor<2>> = outputs
            .iter()
            .map(|t| t.clone().detach().require_grad())
            .collect();
        let mut c = Collect(Vec::new());
        module.visit(&mut c);
        (
            Self {
                outputs,
                leaves: leaves.clone(),
                params: c.0,
                stage,
            },
            leaves,
        )
    }

    /// The same cut, also yielding the gradients of `module`'s parameters (another module the
    /// cut outputs were computed with, e.g. a bag of words beside the encoder).
    #[must_use]
    pub fn with_params<M: Module>(mut self, module: &M) -> Self {
        let mut c = Collect(Vec::new());
        module.visit(&mut c);
        self.params.extend(c.0);
        self
    }

    /// Take the leaves' gradients out of the loss's gradients: the seed of the sub-graph's
    /// backward pass (`None` when the loss did not use the outputs).
    fn seed(&self, grads: &mut Gradients) -> Option<Tensor<1>> {
        let mut seed: Option<Tensor<1>> = None;
        for (out, leaf) in self.outputs.iter().zip(&self.leaves) {
            if let Some(g) = leaf.grad_remove(grads) {
                let term = (out.clone() * Tensor::from_inner(g)).sum();
                seed = Some(match seed {
                    Some(s) => s + term,
                    None => term,
                });
            }
        }
        seed
    }

    /// Back-propagate `seed` through the sub-graph: its parameters' gradients and those of
    /// its deferred stage.
    fn backward(self, seed: Option<Tensor<1>>) -> Result<Vec<ParamGrad>> {
        let Some(seed) = seed else {
            return Ok(Vec::new());
        };
        let mut grads = seed.backward();
        let mut out = match self.stage {
            Some(stage) => stage(&mut grads)?,
            None => Vec::new(),
        };
        for take in self.params {
            out.extend(take(&mut grads)?);
        }
        Ok(out)
    }
}

/// `module` with each float parameter a fresh leaf of its own autodiff graph (same id, same
/// values, same `require_grad`). A sub-graph computed by such a replica shares no node with one
/// computed by another: burn merges the graphs of operations that meet at a tensor, so pieces
/// of a batch encoded by one module on several threads would otherwise build one graph under
/// one lock. Its gradients are those of the module's parameters (a [`Cut`] of the replica
/// yields them under the same ids).
pub fn fresh_leaves<M: Module>(module: M) -> M {
    struct Fresh;
    impl ModuleMapper for Fresh {
        fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
            param.map(|t| {
                let grad = t.is_require_grad();
                let t = t.detach();
                if grad { t.require_grad() } else { t }
            })
        }
    }
    module.map(&mut Fresh)
}

/// The deferred stage that back-propagates every cut sub-graph, two at a time on the current
/// thread pool (`rayon::join`), after the loss's own backward pass.
#[must_use]
pub fn parallel_stage(cuts: Vec<Cut>) -> Deferred {
    Box::new(move |grads| {
        let work: Vec<(Cut, Option<Tensor<1>>)> = cuts
            .into_iter()
            .map(|c| {
                let s = c.seed(grads);
                (c, s)
            })
            .collect();
        let parts = run_all(work)?;
        Ok(parts.into_iter().flatten().collect())
    })
}

/// Run each cut's backward pass, splitting the list in halves over `rayon::join`.
fn run_all(mut work: Vec<(Cut, Option<Tensor<1>>)>) -> Result<Vec<Vec<ParamGrad>>> {
    match work.len() {
        0 => Ok(Vec::new()),
        1 => {
            let (c, s) = work.pop().expect("one");
            Ok(vec![c.backward(s)?])
        }
        n => {
            let right = work.split_off(n / 2);
            let (a, b) = rayon::join(|| run_all(work), || run_all(right));
            let mut a = a?;
            a.extend(b?);
            Ok(a)
        }
    }
}
