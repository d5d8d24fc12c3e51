from django.urls import path

from hydrata.storage import views

app_name = "storage"

urlpatterns = [
    path("upload/<path:key>", views.upload, name="upload"),
    path("download/<path:key>", views.download, name="download"),
]
