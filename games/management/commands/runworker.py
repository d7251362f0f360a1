"""``manage.py runworker``: Channels' command, with a worker that runs the post-game analyses
queued while none ran (``games.computer.workers.StartingWorker``). It takes the place of
Channels' command because ``games`` comes before ``channels`` in ``INSTALLED_APPS``."""

from channels.management.commands import runworker

from games.computer.workers import StartingWorker


class Command(runworker.Command):
    worker_class = StartingWorker
