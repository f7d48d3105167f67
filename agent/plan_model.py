"""Model per phase: while plan mode is on, every request goes to the plan model; after approval,
and whenever plan mode is off, to the session's model.

A layer on the state's event stream. The model client sends `agent.model.name`
with each request, so `PlanModel` keeps that name in step with the phase: at
every mode change and every choice of plan model it sets the name `in_use`
says. The loop, the status line and the sub-agents started while planning
(they share their parent's model) all see the model in use right now, and
nothing in the loop knows there are two. The choice is an event,
PlanModelChosen, so the journal stores it and a resumed session plans on the
same model (session/journal.py, session/live.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.events import Event, ModeChanged
from agent.loop import Agent
from state import AppState

OFF = "off"  # `/model plan off`, `--plan-model off`: plan on the session's model


@dataclass(frozen=True)
class PlanModelChosen(Event):
    """The model planning runs on from now ('' for the session's own), and who chose it."""

    name: str
    cause: str


@dataclass
class PlanModel:
    """The session's model and the plan model, by name; the agent's model carries the one in use."""

    agent: Agent
    session_model: str
    plan_model: str = ""

    def in_use(self) -> str:
        """The plan model while planning, if one is chosen; else the session's model."""
        return self.plan_model if self.agent.state.plan_mode and self.plan_model else self.session_model

    def choose(self, name: str, cause: str) -> None:
        """Plan on `name` from now on ('' plans on the session's model); the journal hears of it."""
        if name != self.plan_model:
            self.plan_model = name
            self.agent.state.events.emit(PlanModelChosen(name, cause))

    def switch_session_model(self, name: str) -> None:
        """`/model NAME`: the session's model from now on; planning stays on the plan model."""
        self.session_model = name
        self.agent.model.name = self.in_use()

    def __call__(self, event: Event) -> None:
        if isinstance(event, (ModeChanged, PlanModelChosen)):
            self.agent.model.name = self.in_use()


def plan_model_layer(agent: Agent) -> None:
    """The layer: the agent's model follows the phase (no plan model until one is chosen)."""
    agent.state.events.subscribe(PlanModel(agent, agent.model.name))


def plan_model_of(state: AppState) -> PlanModel | None:
    """The PlanModel following this state, None when the layer is not attached."""
    return next((listener for listener in state.events.listeners if isinstance(listener, PlanModel)),
                None)
