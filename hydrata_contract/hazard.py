"""The flood hazard classes of Australian Rainfall and Runoff 2019 (Book 6, Chapter 7; AIDR Guideline 7-3), with
the labels ARR gives them. The hazard raster stores a class by its number (1-6; 0 a dry cell). Each class has one
colour, which both the hazard tiles and the maps' legend use."""

from hydrata_contract.labelled import Labelled


class HazardClass(Labelled):
    H1 = "H1", "H1: generally safe for people, vehicles and buildings"
    H2 = "H2", "H2: unsafe for small vehicles"
    H3 = "H3", "H3: unsafe for vehicles, children and the elderly"
    H4 = "H4", "H4: unsafe for people and vehicles"
    H5 = "H5", "H5: unsafe for people and vehicles; all buildings vulnerable to structural damage"
    H6 = "H6", "H6: unsafe for people and vehicles; all building types vulnerable to failure"

    @property
    def number(self) -> int:
        return int(self.value[1:])

    @property
    def colour(self) -> str:
        return HAZARD_COLOURS[self]


# Pale yellow (safe) to deep red (buildings fail): ColorBrewer's YlOrRd, one step per class.
HAZARD_COLOURS = {
    HazardClass.H1: "#ffffb2",
    HazardClass.H2: "#fed976",
    HazardClass.H3: "#feb24c",
    HazardClass.H4: "#fd8d3c",
    HazardClass.H5: "#f03b20",
    HazardClass.H6: "#bd0026",
}
