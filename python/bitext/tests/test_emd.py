"""emd: the exact optimum of POT's ot.emd2 / ot.emd on random problems; the partial form;
bad input raising ValueError."""

import numpy as np
import ot
import pytest

import bitext


def problem(n, m, seed):
    rng = np.random.default_rng(seed)
    a = rng.random(n) + 0.1
    b = rng.random(m) + 0.1
    a /= a.sum()
    b /= b.sum()
    x, y = rng.standard_normal((n, 5)), rng.standard_normal((m, 5))
    cost = np.sqrt(((x[:, None, :] - y[None, :, :]) ** 2).sum(-1))
    return a, b, cost


@pytest.mark.parametrize("n, m, seed", [(5, 7, 1), (30, 20, 2), (64, 64, 3)])
def test_emd_equals_pot(n, m, seed):
    a, b, cost = problem(n, m, seed)
    got = bitext.emd(a, b, cost)
    want = ot.emd2(a, b, cost)
    assert abs(got - want) <= 1e-9 * max(1.0, abs(want))
    value, plan = bitext.emd(a, b, cost, plan=True)
    assert value == got and plan.shape == (n, m)
    np.testing.assert_allclose(plan.sum(1), a, atol=1e-12)
    np.testing.assert_allclose(plan.sum(0), b, atol=1e-12)
    assert abs((plan * cost).sum() - want) <= 1e-9 * max(1.0, abs(want))


def test_partial_moves_the_lighter_side():
    a = np.array([1.0, 1.0, 1.0])
    b = np.array([1.0, 1.0])
    cost = np.array([[0.0, 5.0], [5.0, 0.0], [1.0, 1.0]])
    value, plan = bitext.emd(a, b, cost, plan=True, partial=True)
    assert value == 0.0
    np.testing.assert_allclose(plan.sum(0), b)
    with pytest.raises(ValueError):
        bitext.emd(a, b, cost)  # unequal masses need partial=True


def test_bad_emd_input_raises_value_error():
    a, b, cost = problem(4, 3, 4)
    with pytest.raises(ValueError, match="cost"):
        bitext.emd(a, b, cost.astype(np.float32))
    with pytest.raises(ValueError, match="cost"):
        bitext.emd(a, b, cost.T)
    with pytest.raises(ValueError):
        bitext.emd(a, b[:2], cost)
    bad = cost.copy()
    bad[1, 2] = np.nan
    with pytest.raises(ValueError):
        bitext.emd(a, b, bad)
    with pytest.raises(ValueError):
        bitext.emd(-a, b, cost)
    with pytest.raises(ValueError, match="a"):
        bitext.emd(list(a), b, cost)
    raw = np.zeros(cost.nbytes + 1, dtype=np.uint8)
    odd = np.frombuffer(raw.data, dtype=np.float64, count=cost.size, offset=1).reshape(cost.shape)
    with pytest.raises(ValueError, match="not aligned"):
        bitext.emd(a, b, odd)
