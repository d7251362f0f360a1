import pytest

from tests.support.notify import PushService, SmtpServer


@pytest.fixture
def smtp(settings):
    """A mail server of the test's own, which the site sends through."""
    with SmtpServer() as server:
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", server.port
        settings.SITE_URL = "https://boardhall.test"
        yield server


@pytest.fixture
def push_service(settings):
    """A push service of the test's own, which the site may post to."""
    with PushService() as service:
        settings.PUSH_SERVICE_HOSTS = ["127.0.0.1"]
        settings.SITE_URL = "https://boardhall.test"
        yield service
