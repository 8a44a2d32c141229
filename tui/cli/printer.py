"""Readable lines for a run's events: what ``ponder solve`` and ``ponder replay --print``
show."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.console import Console

    from solver.events import Event

__all__ = ["EventPrinter"]


class EventPrinter:
    """Readable lines for a stream of events (``-v`` prints every thought and check)."""

    def __init__(self, console: Console, verbose: bool = False, *, unchecked: bool = False) -> None:
        self.console = console
        self.verbose = verbose
        self.unchecked = unchecked
        """The puzzle has no answer to judge by: the finish shows the answer, unjudged."""
        self.concurrency: Callable[[], object] | None = None
        """The model's concurrency limit now (shown in the last line), if it has one."""

    def __call__(self, event: Event) -> None:
        from rich.markup import escape

        from solver import events as ev
        from solver.text import visible_event

        c = self.console
        # Every string in an event may come from a model, a server or a trace: control
        # characters are made visible here, and each is escaped below so it is never markup.
        event = visible_event(event)
        match event:
            case ev.RunStarted(method=method, puzzle=puzzle, model=model):
                c.print(
                    f"[bold]ponder[/] · [cyan]{escape(method)}[/] on [bold]{escape(puzzle)}[/] · "
                    f"model [magenta]{escape(model)}[/]"
                )
            case ev.IterationStarted(iteration=i, total=n, label=label):
                c.rule(f"{escape(label)} ({i}/{n})", style="dim")
            case ev.ThoughtAdded(node_id=node, text=text, depth=depth) if self.verbose:
                c.print(f"{'  ' * depth}[dim]{escape(node)}[/] {escape(text)}")
            case ev.ThoughtScored(node_id=node, score=score, edge_score=edge, samples=samples) if (
                self.verbose
            ):
                extra = f" edge {edge:g}" if edge is not None else ""
                labels = f" ({', '.join(samples)})" if samples else ""
                c.print(f"    [dim]{escape(node)} scored {score:g}{extra}{escape(labels)}[/]")
            case ev.ThoughtPruned(node_id=node, reason=reason) if self.verbose:
                c.print(f"    [dim]{escape(node)} pruned: {escape(reason)}[/]")
            case ev.ClaimVerified(status=status):
                if self.verbose or status in ("wrong", "invalid"):
                    hues = {"exact": "green", "approx": "yellow", "invalid": "magenta"}
                    note = f" ({escape(event.note)})" if event.note else ""
                    shown = f"{escape(event.said)}{note}"
                    c.print(f"    [{hues.get(status, 'red')}]{event.mark}[/] {shown}")
            case ev.WordChecked(clue=clue, word=word, pattern=pattern, ok=ok, reason=reason):
                if self.verbose or not ok:
                    colour = "green" if ok else "red"
                    c.print(
                        f"    [{colour}]{event.mark}[/] {escape(clue)}. {escape(word)} "
                        f"[dim]on {escape(pattern)}: {escape(reason)}[/]"
                    )
            case ev.Backtracked(node_id=node, parent_id=parent) if self.verbose:
                back = f"to {escape(parent)}" if parent else "to the start"
                c.print(f"    [dim]{escape(node)} backtrack {back}[/]")
            case ev.SolutionFound(node_id=node, answer=answer):
                c.print(f"  [green]★ solution[/] {escape(answer)} [dim]({escape(node)})[/]")
            case ev.ChainAggregated(strategy=strategy, steps=steps, score=score):
                c.print(
                    f"  [bold]aggregated chain[/] ({escape(strategy)}, score {score:g}): "
                    f"{escape(' → '.join(steps))}"
                )
            case ev.ExperienceAdded(
                report=report, advice=advice, confidence=conf, verdict=verdict, chain_ok=ok
            ):
                mark = "[green]✓[/]" if ok else "[red]✗[/]"
                c.print(f"  [bold]analysis[/] {escape(report)}")
                for i, tip in enumerate(advice, 1):
                    if tip:
                        c.print(f"    step {i}: {escape(tip)}")
                conf_text = f"{conf:g}" if conf is not None else "?"
                c.print(f"    confidence {conf_text} · exact check {mark} {escape(verdict)}")
                if event.repeat_of:
                    c.print(
                        f"    [dim]the same chain and analysis as entry {event.repeat_of}: "
                        "left out of the prompts[/]"
                    )
            case ev.FinalAnswered(answer=answer, ok=ok, verdict=verdict):
                mark = "[green]✓[/]" if ok else "[red]✗[/]"
                said = escape(answer) if answer else "(no answer)"
                c.print(
                    f"  [bold]final prompt[/] (all the experience): {said} · exact check "
                    f"{mark} {escape(verdict)}"
                )
            case ev.ExperienceCarried(entries=entries, kept_out=kept_out) if entries:
                where = "kept out of the prompts (ablation)" if kept_out else "in every prompt"
                c.print(
                    f"  [bold]from the library[/] {len(entries)} "
                    f"{'entry' if len(entries) == 1 else 'entries'} of earlier runs, {where}"
                )
                if self.verbose:
                    for entry in entries:
                        c.print(f"    [dim]{escape(entry.splitlines()[0] if entry else '')}[/]")
            case ev.TurnGuided(guidance=guidance, stop=stop, phase=phase):
                who = {"final": "closing", "first": "no guide"}.get(phase, "guide")
                # The guide's flag is advice: only the answerer's own flag ends a dialogue.
                flag = " [yellow](stop: its advice, ends nothing)[/]" if stop else ""
                c.print(f"  [bold]{who}[/]{flag} {escape(guidance)}")
            case ev.TurnAnswered() as turn:
                mark = "[green]✓[/]" if turn.ok else "[red]✗[/]"
                said = " · says final" if turn.final else ""
                moved = "changed" if turn.changed else "unchanged"
                c.print(
                    f"  [bold]answer[/] {escape(turn.answer or '(none)')} {mark} "
                    f"[dim]{escape(turn.verdict)} · {moved}{said} · "
                    f"{turn.prompt_tokens:,} prompt tokens[/]"
                )
                if self.verbose and turn.reply:
                    c.print(f"    [dim]{escape(turn.reply)}[/]")
                if turn.uncertainty:
                    c.print(f"    [dim]unsure: {escape(turn.uncertainty)}[/]")
            case ev.DialogueStopped(reason=reason):
                c.print(f"  [bold]stopped:[/] {escape(reason)}")
            case ev.ToolCalled(thought=thought, tool=tool, argument=argument, notes=notes):
                if thought:
                    c.print(f"  [bold]thought[/] {escape(thought)}")
                action = f"{tool}[{argument}]" if tool else argument or "(none)"
                c.print(f"  [bold]action[/] {escape(action)}")
                for note in notes:
                    c.print(f"    [yellow]⚠ {escape(note)}[/]")
            case ev.ToolObserved(observation=text, status=status, tool=tool) if tool != "finish":
                tag = "" if status == "ok" else f" [red]({escape(status)})[/]"
                c.print(f"  [bold]observation[/]{tag} [dim](tool)[/] {escape(text)}")
            case ev.EpisodeEnded(reason=reason) | ev.DeliberationEnded(reason=reason):
                c.print(f"  [bold]stopped:[/] {escape(reason)}")
            case ev.DemonstrationsRetrieved() as found:
                count = len(found.ids)
                c.print(
                    f"  [bold]demonstrations[/] {count} of {found.asked} retrieved by "
                    f"{escape(found.retriever)}"
                    + ("" if count else " (none like this problem: the fixed examples)")
                )
                for i, (name, score, text) in enumerate(
                    zip(found.ids, found.scores, found.texts, strict=False), 1
                ):
                    question = text.splitlines()[0].removeprefix("Question: ") if text else ""
                    c.print(f"    {i}. [dim]{escape(name)} · score {score:g}[/] {escape(question)}")
                    if self.verbose:
                        for line in text.splitlines()[1:]:
                            c.print(f"       [dim]{escape(line)}[/]")
            case ev.FallbackDecided(target=target, taken=taken, reason=reason):
                if taken:
                    c.print(f"  [bold yellow]fallback → {escape(target)}:[/] {escape(reason)}")
                else:
                    c.print(f"  [bold]no fallback to {escape(target)}:[/] {escape(reason)}")
            case ev.VotesCounted() as counted:
                shown = escape(counted.summary())
                c.print(f"  [bold]votes[/] [dim]({counted.samples} samples)[/] {shown}")
            case ev.DeliberationStage() as stage:
                mark = "[green]✓[/]" if stage.ok else "[red]✗[/]"
                moved = "changed" if stage.changed else "unchanged"
                c.print(
                    f"  [bold]{escape(stage.stage)} stage[/] answer "
                    f"{escape(stage.answer or '(none)')} {mark} [dim]{escape(stage.verdict)} · "
                    f"{moved}[/]"
                )
                if self.verbose:
                    c.print(f"    [dim]{escape(stage.text)}[/]")
            case ev.ParseFailed(purpose=purpose, reason=reason) if self.verbose:
                c.print(f"    [yellow]unparsed {escape(purpose)} reply:[/] {escape(reason)}")
            case ev.ErrorRaised(kind=kind, message=message):
                c.print(f"[red]error ({escape(kind)}):[/] {escape(message)}")
            case ev.ModelCalled() as called if called.cut or called.notes:
                for warning in called.warnings():
                    c.print(f"  [yellow]⚠ {escape(warning)}[/]")
            case ev.RunFinished() as fin:
                mark = "[green]✓ solved[/]" if fin.solved else "[red]✗ not solved[/]"
                if self.unchecked:
                    mark = "[yellow]answered, not checked[/]" if fin.answer else "[red]no answer[/]"
                cost = f"${fin.cost:.4f}" if fin.cost is not None else "unknown"
                c.rule(style="dim")
                c.print(f"{mark}  answer: [bold]{escape(fin.answer or '(none)')}[/]")
                c.print(f"[dim]{escape(fin.verdict)}[/]")
                if fin.samples > 1:
                    c.print(f"{fin.samples_solved} of {fin.samples} samples right")
                limit = self.concurrency() if self.concurrency is not None else None
                shown = f" · concurrency {limit}" if limit is not None else ""
                c.print(
                    f"calls {fin.calls} · tokens {fin.tokens:,} · cost {cost} · "
                    f"{fin.wall_time:.2f}s{shown} · {escape(fin.reason)}"
                )
            case _:
                pass
