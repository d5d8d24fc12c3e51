from django.urls import path

from hydrata.anuga.api import views

urlpatterns = [
    path("projects/", views.ProjectListCreateView.as_view(), name="projects"),
    path("projects/<int:project_id>/", views.ProjectDetailView.as_view(), name="project-detail"),
    path("maps/<int:map_id>/", views.MapDetailView.as_view(), name="map-detail"),
]
