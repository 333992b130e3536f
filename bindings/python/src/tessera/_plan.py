"""Plan mode: a Program (built explicitly, or recorded by `with capture()`),
compiled into a Plan whose register memory a PlanInstance allocates once; runs then
reuse it. Building and compiling are local; run(), output() and outputs() are
collective like the ops they stand for; every rank builds, compiles and runs the
same program. Capture and compile start the runtime."""

import collections

from . import _capi
from ._capi import OpCall, Plan, PlanInstance, Program, Tensor
from ._dtypes import dtype_code, in_place, numpy, numpy_dtype
from ._errors import OutOfRangeError, failed_precondition, invalid_argument
from ._handles import attach, handle_protocols
from ._placement import as_placement, nd_sbp, optional_nd_sbp
from ._runtime import ensure_started

ProgramSizes = collections.namedtuple("ProgramSizes", "values ops inputs outputs")
ProgramSizes.__module__ = "tessera"
ProgramSizes.__doc__ = "A Program's counts of values, ops, data inputs and outputs."

attach(Program, "program_", {"create"}, {"string"})


def _program_init(self):
    """Program(): an empty program. Values (inputs, variables, op outputs) are
    numbered 0, 1, ... in the order they are added."""
    self.this = _capi.program_create().this


def _program_add_input(self, name, shape, dtype, placement, sbp=None):
    """Adds a data input (fed at every run) of `shape`, `dtype` (numpy dtype or name)
    and `placement`, held as `sbp` (default: split(0) on every placement axis,
    broadcast for a 0-d input). Returns its value id."""
    return _capi.program_add_input(self, name, [int(d) for d in shape], dtype_code(dtype),
                                   as_placement(placement), optional_nd_sbp(sbp))


def _program_add_variable(self, name, tensor):
    """Adds a variable: the program keeps `tensor` (a Tensor with data) and every run
    reads it in place. Returns its value id."""
    if not isinstance(tensor, Tensor):
        raise TypeError("Program.add_variable: %r is not a Tensor" % (tensor,))
    return _capi.program_add_variable(self, name, tensor)


def _slots(sbps):
    """(slot, NdSbp) pairs from a {slot: sbp} dict or a sequence (None: free)."""
    if sbps is None:
        return []
    items = sbps.items() if isinstance(sbps, dict) else enumerate(sbps)
    return [(int(slot), nd_sbp(s)) for slot, s in items if s is not None]


def _program_add_op(self, op, inputs, attrs=None, input_sbps=None, output_sbps=None):
    """Appends op `op` (a name, or an OpCall without inputs, which this call then
    modifies) applied to the value ids `inputs`, with attributes `attrs` (a dict, as
    OpCall.attr takes them) and SBP constraints on input or output slots
    (`input_sbps` / `output_sbps`: {slot: sbp} or a sequence with None for a free
    slot). The op is inferred at once, so a bad call raises here. Returns the list
    of its output value ids."""
    call = OpCall(op) if isinstance(op, str) else op
    if not isinstance(call, OpCall):
        raise TypeError("Program.add_op: op must be an op name or an OpCall, got %r" % (op,))
    for name, value in (attrs or {}).items():
        call.attr(name, value)
    for slot, s in _slots(input_sbps):
        call.constrain_input(slot, s)
    for slot, s in _slots(output_sbps):
        call.constrain_output(slot, s)
    first, count = _capi.program_add_op(self, call, [int(i) for i in inputs])
    return list(range(first, first + count))


def _program_mark_output(self, value_id):
    """Makes value `value_id` the program's next output."""
    _capi.program_mark_output(self, int(value_id))


Program.__init__ = _program_init
Program.add_input = _program_add_input
Program.add_variable = _program_add_variable
Program.add_op = _program_add_op
Program.mark_output = _program_mark_output
Program.sizes = property(lambda self: ProgramSizes(*_capi.program_sizes(self)),
                         doc="The program's ProgramSizes.")
Program.compile = lambda self, input_register_num=1: compile(self, input_register_num)
Program.__repr__ = lambda self: "<tessera.Program %d values, %d ops, %d inputs, %d outputs>" % (
    tuple(self.sizes))


class capture(object):
    """Records eager ops into a Program instead of running them:

        with ts.capture() as cap:
            x = cap.placeholder("x", (8, 16), "f32", p)   # a Tensor without data
            y = ts.softmax(ts.relu(x @ w1) @ w2)         # recorded; w1, w2 variables
            cap.set_outputs(y)
        plan = ts.compile(cap.program)

    Ops with a placeholder input are recorded and return placeholders; real tensors
    they use become variables; ops on real tensors alone run as usual. The block
    must call set_outputs(); an exception in it aborts the capture. One capture per
    thread, used once."""

    def __init__(self):
        self._state = "new"  # new -> active -> done (or failed)
        self._outputs = None
        self._program = None

    def __enter__(self):
        if self._state != "new":
            raise failed_precondition("capture: this capture was already used (%s); make a "
                                      "new ts.capture()" % self._state)
        ensure_started()
        _capi.capture_begin()
        self._state = "active"
        return self

    def _require_active(self, function):
        if self._state != "active":
            raise failed_precondition("capture.%s: the capture is %s; call it inside its with "
                                      "block" % (function, self._state))

    def placeholder(self, name, shape, dtype, placement, sbp=None):
        """A data input of the program (Program.add_input's arguments) as a
        placeholder Tensor: metadata, no data."""
        self._require_active("placeholder")
        return _capi.capture_placeholder(name, [int(d) for d in shape], dtype_code(dtype),
                                         as_placement(placement), optional_nd_sbp(sbp))

    def set_outputs(self, *tensors):
        """The program's outputs, in order: placeholders of this capture. Replaces an
        earlier call's; checked when the block ends."""
        self._require_active("set_outputs")
        if not tensors:
            raise invalid_argument("capture.set_outputs: no outputs")
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor):
                raise TypeError("capture.set_outputs: output %d (%r) is not a Tensor" % (i, t))
        self._outputs = list(tensors)

    def __exit__(self, exc_type, exc, tb):
        if self._state != "active":
            return False
        self._state = "failed"
        outputs, self._outputs = self._outputs, None
        if exc_type is not None:
            _capi.capture_abort()
            return False
        if outputs is None:
            _capi.capture_abort()
            raise invalid_argument("capture: the block ended without set_outputs()")
        try:
            program = _capi.capture_end(outputs)
        except BaseException:
            _capi.capture_abort()  # capture_end ends it too, unless the call never reached C
            raise
        self._program = program
        self._state = "done"
        return False

    @property
    def active(self):
        """Whether the with block is running."""
        return self._state == "active"

    @property
    def program(self):
        """The recorded Program, once the with block has ended without error."""
        if self._state != "done":
            raise failed_precondition(
                "capture.program: the capture is %s; the program exists once its with block "
                "has ended without error" % self._state)
        return self._program


capture.__module__ = "tessera"


def capturing():
    """Whether a capture is active on the calling thread."""
    return bool(_capi.capture_active())


def capture_assign(target, value):
    """Training in plan mode (docs/training.md, "Plan mode"): every run of the program
    being captured ends, after all its steps, by copying `value` (a placeholder of this
    capture) into `target` (a real tensor of the same shape, dtype and layout, which
    becomes a variable). FailedPreconditionError without a capture;
    InvalidArgumentError for a placeholder target, a real value, a mismatch or a target
    assigned twice."""
    for name, t in (("target", target), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError("capture_assign: %s (%r) is not a Tensor" % (name, t))
    _capi.capture_assign(target, value)


def compile(program, input_register_num=1):
    """Compiles `program` for this rank into a Plan: its steps (kernels and explicit
    boxing) and its register memory, packed with reuse. `input_register_num` copies
    of each data input's register. Local (starts the runtime)."""
    if not isinstance(program, Program):
        raise TypeError("compile: %r is not a Program" % (program,))
    ensure_started()
    return _capi.plan_compile(program, int(input_register_num))


handle_protocols(Plan, lambda self: _capi.plan_string(self))
Plan.string = property(lambda self: _capi.plan_string(self),
                       doc="The program, the steps and the memory table.")
Plan.instantiate = lambda self: _capi.plan_instantiate(self)
Plan.instantiate.__doc__ = ("A PlanInstance: allocates the plan's register memory once; "
                            "its runs reuse it.")
Plan.__repr__ = lambda self: "<tessera.Plan>"


def _output_index(instance, index):
    """`index` as a C index; negative ones count from the end, as lists do."""
    index = int(index)
    n = instance.num_outputs
    if -n <= index < 0:
        index += n
    if index < 0:
        raise OutOfRangeError(_capi.OUT_OF_RANGE, "output index %d but the program has %d "
                              "outputs" % (index, n))
    return index


def _check_tensors(function, tensors):
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError("PlanInstance.%s: input %d (%r) is not a Tensor" % (function, i, t))


def _instance_run(self, *tensors):
    """Runs the plan on the data inputs (Tensors, in the program's input order; a
    different sbp is boxed in). The outputs stay in the instance until the next run.
    Returns the instance. Collective."""
    _check_tensors("run", tensors)
    _capi.plan_instance_run(self, tensors)
    return self


def _timeout(name, timeout):
    if timeout is None:
        return -1.0
    timeout = float(timeout)
    if timeout < 0:
        raise invalid_argument("%s: timeout is %r; None (wait forever) or >= 0"
                               % (name, timeout))
    return timeout


def _instance_push(self, *tensors, timeout=None):
    """Pipelining (a plan compiled with input_register_num >= 2): copies one input
    set into the next free slot, waiting up to `timeout` seconds (None: forever)
    while every slot is full. One pusher thread may call this while another thread
    runs run_pushed(); the GIL is released while either waits. An input in another
    sbp is boxed (collective), which first waits for every earlier set to run.
    Returns the instance."""
    _check_tensors("push", tensors)
    _capi.plan_instance_push(self, tensors, _timeout("PlanInstance.push", timeout))
    return self


def _instance_run_pushed(self, timeout=None):
    """Runs the plan on the oldest pushed input set, waiting up to `timeout` seconds
    (None: forever) for one: DeadlineExceededError when none came. The outputs then
    read as after run(). Returns the instance. Collective."""
    _capi.plan_instance_run_pushed(self, _timeout("PlanInstance.run_pushed", timeout))
    return self


def _instance_run_local(self, *locals):
    """run() with this rank's pieces of the inputs (numpy arrays in each input's
    declared sbp and dtype; None on a rank the input's placement lacks). Returns the
    instance. Collective."""
    np = numpy()
    _capi.plan_instance_run_local(self, [None if a is None else np.ascontiguousarray(a)
                                for a in locals])
    return self


def _instance_output(self, index):
    """Output `index` of the last run as a new Tensor (a copy). Collective."""
    return _capi.plan_instance_output(self, _output_index(self, index))


def _instance_output_local(self, index, out=None):
    """This rank's piece of output `index` of the last run as a numpy array: a new
    one, or `out` (C-contiguous, writable, of the piece's shape and dtype) filled in
    place. Local."""
    np = numpy()
    index = _output_index(self, index)
    dtype = numpy_dtype(_capi.plan_instance_output_dtype(self, index))
    shape = _capi.plan_instance_output_local_shape(self, index)
    if out is None:
        out = np.empty(shape, dtype=dtype)
    else:
        out = in_place("PlanInstance.output_local", "out", out)
        if out.shape != shape or out.dtype != dtype:
            raise invalid_argument(
                "PlanInstance.output_local: out is %s %s but output #%d's piece is %s %s"
                % (out.dtype, out.shape, index, dtype, shape))
    _capi.plan_instance_output_local(out, self, index)
    return out


def _instance_stats(self):
    """The instance's counters: registers, steps, boxing_steps, runs,
    allocator_calls_last_run (0 once warm), heap_allocations_last_run (-1: not
    counted in this process), cuda_graphs and cuda_graph_launches (CUDA graphs
    captured on cuda placements, one per input slot and stretch of kernels between
    boxing steps, and their launches; 0 elsewhere), and per memory case ("cpu", "cuda:0")
    its packed block_bytes, lower_bound (most bytes live at once) and no_reuse_bytes."""
    (registers, steps, boxing_steps, runs, allocator_calls, heap_allocations, cuda_graphs,
     cuda_graph_launches) = _capi.plan_instance_get_stats(self)
    mem_cases = []
    for i in range(_capi.plan_instance_num_mem_cases(self)):
        block, lower, no_reuse = _capi.plan_instance_mem_case_bytes(self, i)
        mem_cases.append({"name": _capi.plan_instance_mem_case_name(self, i), "block_bytes": block,
                          "lower_bound": lower, "no_reuse_bytes": no_reuse})
    return {"registers": registers, "steps": steps, "boxing_steps": boxing_steps, "runs": runs,
            "allocator_calls_last_run": allocator_calls,
            "heap_allocations_last_run": heap_allocations, "cuda_graphs": cuda_graphs,
            "cuda_graph_launches": cuda_graph_launches, "mem_cases": mem_cases}


handle_protocols(PlanInstance, lambda self: "PlanInstance(%d outputs, %d runs)" % (
    self.num_outputs, _capi.plan_instance_get_stats(self)[3]))
PlanInstance.num_outputs = property(lambda self: _capi.plan_instance_num_outputs(self),
                                    doc="The number of the program's outputs.")
PlanInstance.run = _instance_run
PlanInstance.run_local = _instance_run_local
PlanInstance.push = _instance_push
PlanInstance.run_pushed = _instance_run_pushed
PlanInstance.close_pipeline = lambda self: _capi.plan_instance_close(self)
PlanInstance.close_pipeline.__doc__ = (
    "Wakes every waiting push / run_pushed with CancelledError and makes later ones fail "
    "the same way (the instance stays readable). Any thread.")
PlanInstance.output = _instance_output
PlanInstance.outputs = lambda self: [self.output(i) for i in range(self.num_outputs)]
PlanInstance.outputs.__doc__ = "Every output of the last run as new Tensors. Collective."
PlanInstance.output_local = _instance_output_local
PlanInstance.stats = _instance_stats
PlanInstance.__repr__ = lambda self: "<tessera.%s>" % self
