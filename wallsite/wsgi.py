from __future__ import annotations

import os

from django.conf import settings
from django.core.wsgi import get_wsgi_application

from wallsite.gc_tuning import tune_gc

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wallsite.settings.base")
application = get_wsgi_application()
# After the application is built, so that everything it loaded is frozen.
tune_gc(settings.GC_GEN0_THRESHOLD)
