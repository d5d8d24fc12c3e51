from django.urls import path

from hydrata.reports import views

app_name = "reports"
urlpatterns = [
    path("runs/<int:run_id>/", views.run_report_page, name="run"),
    path("runs/<int:run_id>/report.pdf", views.run_report_pdf, name="run-pdf"),
    path("comparisons/<int:comparison_id>/", views.comparison_report_page, name="comparison"),
    path("comparisons/<int:comparison_id>/report.pdf", views.comparison_report_pdf, name="comparison-pdf"),
    path("calibration/<int:study_id>/", views.calibration_report_page, name="calibration"),
    path("calibration/<int:study_id>/report.pdf", views.calibration_report_pdf, name="calibration-pdf"),
]
