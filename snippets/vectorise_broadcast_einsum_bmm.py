"""Loops over samples replaced by broadcasting, torch.einsum and torch.bmm, checked equal."""
import argparse
import statistics

import torch
from torch.utils.benchmark import Timer

TOL = {"rtol": 1e-5, "atol": 1e-4}  # float32, different summation order


# --8<-- [start:distances]
def distances_loop(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """Squared distance of every point to every centre, one pair at a time."""
    out = torch.empty(x.shape[0], c.shape[0])
    for i in range(x.shape[0]):
        for j in range(c.shape[0]):
            out[i, j] = ((x[i] - c[j]) ** 2).sum()
    return out


def distances_broadcast(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """(n, 1, d) - (1, k, d) broadcasts to (n, k, d): every pair in one expression."""
    return ((x[:, None, :] - c[None, :, :]) ** 2).sum(-1)
# --8<-- [end:distances]


# --8<-- [start:batched]
def scores_loop(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """Attention scores q @ k^T for each item of the batch, one matmul per item."""
    return torch.stack([q[b] @ k[b].T for b in range(q.shape[0])])


def scores_bmm(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """One batched matmul: (B, n, d) @ (B, d, m) -> (B, n, m)."""
    return torch.bmm(q, k.transpose(1, 2))


def scores_einsum(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """The same contraction written as index notation; einsum dispatches to bmm here."""
    return torch.einsum("bnd,bmd->bnm", q, k)
# --8<-- [end:batched]


def seconds(fn, *args) -> float:
    timer = Timer("fn(*args)", globals={"fn": fn, "args": args}, num_threads=1)
    return timer.blocked_autorange(min_run_time=0.1).median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--points", type=int, default=200, help="points for the distance example (default 200)")
    parser.add_argument("--batch", type=int, default=64, help="batch size for the scores example (default 64)")
    args = parser.parse_args()
    if not (1 <= args.points <= 2000 and 1 <= args.batch <= 4096):
        parser.error("--points must be in 1..2000 and --batch in 1..4096")

    torch.manual_seed(0)
    x, c = torch.randn(args.points, 16), torch.randn(8, 16)
    q, k = torch.randn(args.batch, 32, 64), torch.randn(args.batch, 32, 64)

    torch.testing.assert_close(distances_broadcast(x, c), distances_loop(x, c), **TOL)
    torch.testing.assert_close(scores_bmm(q, k), scores_loop(q, k), **TOL)
    torch.testing.assert_close(scores_einsum(q, k), scores_loop(q, k), **TOL)
    print(f"loop and vectorised results agree (rtol={TOL['rtol']}, atol={TOL['atol']})")

    loop, fast = seconds(distances_loop, x, c), seconds(distances_broadcast, x, c)
    print(f"distances, {args.points} points x 8 centres: broadcasting is {loop / fast:.1f}x faster than the loop")
    # The three timed by turns, five rounds, so a busy moment falls on all of them; medians of the rounds' ratios.
    bmm, einsum = [], []
    for _ in range(5):
        loop, batched, indexed = (seconds(fn, q, k) for fn in (scores_loop, scores_bmm, scores_einsum))
        bmm.append(loop / batched)
        einsum.append(loop / indexed)
    print(f"scores, batch {args.batch}: bmm is {statistics.median(bmm):.1f}x and einsum "
          f"{statistics.median(einsum):.1f}x faster than the loop (1 thread, median of 5 rounds taken by turns)")


if __name__ == "__main__":
    main()
