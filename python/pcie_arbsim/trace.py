"""A transaction trace (`pcie-arbsim run --trace FILE`, docs/observability.md): read and
checked against the Chrome trace-event format, and drawn as a timeline with matplotlib.

    from pcie_arbsim import trace
    events = trace.load_trace("out/trace.json")        # ValueError naming the first bad event
    trace.timeline("out/trace.json", "timeline.png")   # one row per VC and per waiting requester
"""
import json
from collections import defaultdict

PHASES = {"X", "C", "M", "s", "t", "f", "i", "B", "E"}
METADATA = {"process_name", "thread_name", "process_sort_index", "thread_sort_index"}
WAIT_TID = 100  # a requester's wait track is WAIT_TID + its slot; VC tracks are the VC


def _check_event(i, e):
    where = f"traceEvents[{i}]"
    if not isinstance(e, dict):
        return f"{where}: not an object"
    ph = e.get("ph")
    if ph not in PHASES:
        return f"{where}: ph {ph!r} is not a trace-event phase"
    if not isinstance(e.get("pid"), int):
        return f"{where}: pid must be an integer"
    if ph == "M":
        if e.get("name") not in METADATA or not isinstance(e.get("args"), dict):
            return f"{where}: metadata needs a known name and args"
        return None
    ts = e.get("ts")
    if not isinstance(ts, (int, float)) or ts < 0:
        return f"{where}: ts must be a number >= 0 (microseconds)"
    if not isinstance(e.get("name"), str) or not e["name"]:
        return f"{where}: name must be a non-empty string"
    if ph == "X" and (not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0):
        return f"{where}: a complete event needs dur >= 0"
    if ph == "C" and not (isinstance(e.get("args"), dict) and e["args"]
                          and all(isinstance(v, (int, float)) for v in e["args"].values())):
        return f"{where}: a counter needs numeric args"
    if ph in ("s", "t", "f") and ("id" not in e or not e.get("cat")):
        return f"{where}: a flow event needs id and cat"
    return None


def _check_flows(events):
    started = set()
    for i, e in sorted(enumerate(events), key=lambda ie: (ie[1].get("ts", 0), ie[0])):
        if e.get("ph") == "s":
            started.add(e["id"])
        elif e.get("ph") in ("t", "f") and e["id"] not in started:
            return f"traceEvents[{i}]: flow step of id {e['id']} before its start"
    return None


def _check_wire(events):
    """A link direction carries one TLP at a time: its slices on the wire never overlap."""
    wire = defaultdict(list)
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "tlp":
            wire[e["pid"]].append((e["ts"], e["ts"] + e["dur"]))
    for pid, spans in wire.items():
        spans.sort()
        for (a0, a1), (b0, _) in zip(spans, spans[1:]):
            if b0 < a1 - 1e-9:
                return f"pid {pid}: TLPs overlap on the wire at {b0} us"
    return None


def load_trace(path):
    """The events of a trace file, after checking the format (and that each link direction's
    TLPs do not overlap); raises ValueError with the first problem."""
    with open(path) as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        raise ValueError(f"{path}: not a trace-event JSON object with a traceEvents list")
    events = doc["traceEvents"]
    for i, e in enumerate(events):
        problem = _check_event(i, e)
        if problem:
            raise ValueError(f"{path}: {problem}")
    for check in (_check_flows, _check_wire):
        problem = check(events)
        if problem:
            raise ValueError(f"{path}: {problem}")
    return events


def timeline(path, out=None, processes=None, t0_us=None, t1_us=None, ax=None):
    """Draws a trace as a timeline: per watched link direction, a row per VC (its TLPs on the
    wire, coloured by requester) and a row per requester that waited (its waits, coloured by
    reason). `processes`: link direction names to draw (default all); t0_us, t1_us: the span.
    Saves to `out` when given; returns the Axes."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    events = load_trace(path)
    names = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    tracks = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    keep = [p for p in sorted(names) if processes is None or names[p] in processes]
    rows = [(p, t) for p in keep for (pp, t) in sorted(tracks) if pp == p]
    slices = [e for e in events if e["ph"] == "X" and (e["pid"], e["tid"]) in rows
              and (t1_us is None or e["ts"] <= t1_us) and (t0_us is None or e["ts"] + e["dur"] >= t0_us)]
    labels = sorted({e["args"]["requester"] if e["cat"] == "tlp" else e["name"] for e in slices})
    colours = {lab: plt.cm.tab10(i % 10) for i, lab in enumerate(labels)}
    if ax is None:
        _, ax = plt.subplots(figsize=(10, 0.45 * len(rows) + 1.6), constrained_layout=True)
    for y, row in enumerate(rows):
        for e in (s for s in slices if (s["pid"], s["tid"]) == row):
            lab = e["args"]["requester"] if e["cat"] == "tlp" else e["name"]
            ax.broken_barh([(e["ts"], e["dur"])], (y - 0.4, 0.8), color=colours[lab], label=lab, edgecolor="white",
                           linewidth=0.5)
    ax.set_yticks(range(len(rows)), [f"{names[p]}: {tracks[(p, t)]}" for p, t in rows], fontsize="small")
    ax.invert_yaxis()
    ax.set_xlabel("simulated time (us)")
    if t0_us is not None or t1_us is not None:
        ax.set_xlim(t0_us, t1_us)
    handles = {}  # one legend entry per requester or reason
    for h, lab in zip(*ax.get_legend_handles_labels()):
        handles.setdefault(lab, h)
    ax.legend(handles.values(), handles.keys(), fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.set_title("Transaction trace: TLPs on the wire per VC, and why each requester waited")
    if out:
        ax.figure.savefig(out, dpi=110)
    return ax
