"""``manage.py runworker``: Channels' command, with a worker that first runs the worker start
hooks of the channels it listens on (``games.runtime.starting.StartingWorker``): the post-game
analyses queued while no worker ran, the GGP matches whose task died. It takes the place of
Channels' command because ``games`` comes before ``channels`` in ``INSTALLED_APPS``."""

from channels.management.commands import runworker

from games.runtime.starting import StartingWorker


class Command(runworker.Command):
    worker_class = StartingWorker
