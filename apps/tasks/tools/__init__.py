"""The Tasks area of the catalogue (SPEC 4.7): thin doors onto services, the runner and schedules.

One module per subject. The catalogue autodiscovers `apps.tasks.tools`; importing the modules
here is what registers their tools."""

from apps.tasks.tools import drafts, files, running, scheduled, steps, tasks  # noqa: F401  (registers them)
