"""The authentication backend: Django's ``ModelBackend`` with the user read on every page and
socket written out once (``games.selectors.rows.user_by_id``) instead of compiled by the ORM each time.

Sessions made before it name ``django.contrib.auth.backends.ModelBackend``, which stays in
``AUTHENTICATION_BACKENDS`` so that nobody is signed out; new sign-ins name this one."""

from __future__ import annotations

from django.contrib.auth.backends import ModelBackend

from games.selectors import rows


class Backend(ModelBackend):
    def get_user(self, user_id):
        user = rows.user_by_id(user_id)
        return user if user is not None and self.user_can_authenticate(user) else None
