# The stub of tessera._optim (ts.optim).
from typing import Any, NamedTuple, Sequence, Tuple, Union

from . import Tensor

DEFAULT_BUCKET_BYTES: int

class OptimizerStats(NamedTuple):
    steps: int
    num_params: int
    num_buckets: int
    allreduces_in_backward: int
    allreduce_seconds: float
    allreduce_wait_seconds: float
    state_bytes: int

class Optimizer:
    @property
    def params(self) -> list: ...
    def step(self) -> None: ...
    def zero_grad(self) -> None: ...
    def set_lr(self, lr: float) -> None: ...
    lr: float
    def stats(self) -> OptimizerStats: ...
    def close(self) -> None: ...
    def __enter__(self) -> Optimizer: ...
    def __exit__(self, *exc_info: Any) -> bool: ...

def SGD(params: Union[Tensor, Sequence[Tensor]], lr: float = ..., momentum: float = ...,
        dampening: float = ..., nesterov: bool = ..., weight_decay: float = ...,
        fused: bool = ..., bucket_bytes: int = ..., zero1: bool = ...) -> Optimizer: ...
def Adam(params: Union[Tensor, Sequence[Tensor]], lr: float = ...,
         betas: Tuple[float, float] = ..., eps: float = ..., weight_decay: float = ...,
         fused: bool = ..., bucket_bytes: int = ..., zero1: bool = ...) -> Optimizer: ...
def AdamW(params: Union[Tensor, Sequence[Tensor]], lr: float = ...,
          betas: Tuple[float, float] = ..., eps: float = ..., weight_decay: float = ...,
          fused: bool = ..., bucket_bytes: int = ..., zero1: bool = ...) -> Optimizer: ...
