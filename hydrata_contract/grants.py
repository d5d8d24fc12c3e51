"""What an agent may do on a person's behalf: the grant's level (each includes those before it) and its kind."""

from hydrata_contract.labelled import Labelled


class GrantLevel(Labelled):
    READ = "read", "Read"
    DRAFT = "draft", "Draft (build models)"
    LAUNCH = "launch", "Launch (run simulations, spends money)"


class GrantKind(Labelled):
    KEY = "key", "Agent key"
    CONNECT = "connect", "Connected app (OAuth sign-in)"
