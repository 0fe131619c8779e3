package ui

import (
	"time"

	"crewbench/crew"
	"crewbench/crew/rerun"
	"crewbench/mcpconn"
	"crewbench/mcpconn/filter"
	"crewbench/session"
)

// Every message type of the workbench. Engine results come back as these;
// pane intents ("open the detail of this tool") are these too, and only
// the root handles them.

// Pool events and state.
type (
	// poolEventsMsg is a drained batch of the pool's events.
	poolEventsMsg []session.Event
	// poolClosedMsg says the pool's event channel was closed.
	poolClosedMsg struct{}
	// statusMsg is a fresh snapshot of every server.
	statusMsg []mcpconn.ServerStatus
	// connectDoneMsg says the initial connect settled.
	connectDoneMsg struct{ err error }
	// reconnectDoneMsg / pingDoneMsg / healthDoneMsg are server actions.
	reconnectDoneMsg struct {
		server string
		err    error
	}
	pingDoneMsg struct {
		server string
		rtt    time.Duration
		err    error
	}
	healthDoneMsg struct {
		server string
		res    mcpconn.HealthResult
	}
	// poolShutMsg says Close returned: every server process is reaped.
	poolShutMsg struct{ err error }
	// authStateMsg is a server's OAuth state; loginURLMsg says a login is
	// waiting for the user at url (done delivers its end); loginDoneMsg
	// says it ended.
	authStateMsg struct {
		server string
		state  AuthState
	}
	loginURLMsg struct {
		server, url string
		done        <-chan error
	}
	loginDoneMsg struct {
		server string
		err    error
	}
)

// Pane intents.
type (
	showToolsMsg  struct{ server string }
	showFilterMsg struct{ server string }
	showTryMsg    struct {
		server string
		tool   string
	}
	showViewMsg struct{ v view }
	// noticeMsg puts a line in the status bar.
	noticeMsg struct {
		level noticeLevel
		text  string
		id    int
		// topic names the action the notice is about ("" none), so the
		// action's resolution can clear it.
		topic noticeTopic
	}
	// clearNoticeMsg clears notice id (or any notice about topic) when it
	// is still shown.
	clearNoticeMsg struct {
		id    int
		topic noticeTopic
	}
)

// Filter playground.
type filterResultMsg struct {
	gen      int
	server   string
	verdicts []filter.Verdict
	hints    []filter.Hint
	err      error
	took     time.Duration
}

type exportMsg struct {
	text string
	err  error
}

type writePlanMsg struct {
	plan WritePlan
	err  error
}

type writeDoneMsg struct {
	backup string
	err    error
}

// Try a tool.
type (
	callEventsMsg struct {
		id     int
		events []session.Event
	}
	callEventsClosedMsg struct{ id int }
	callDoneMsg         struct {
		id  int
		res *mcpconn.CallResult
		// recorded is the session file the call went to ("" if none);
		// recordErr why it could not be recorded.
		recorded  string
		recordErr error
	}
	copiedMsg struct {
		err error
		// viaTerminal: the terminal was asked to copy (OSC 52).
		viaTerminal bool
	}
	callTickMsg struct{ id int }
)

// $EDITOR round trips.
type (
	editorTarget int
	// editorReadyMsg: the temp file is written; run the editor on it.
	editorReadyMsg struct {
		target editorTarget
		path   string
		err    error
	}
	// editorExitedMsg: the editor returned; read the file back.
	editorExitedMsg struct {
		target editorTarget
		path   string
		err    error
	}
	// editorDoneMsg: the edited text.
	editorDoneMsg struct {
		target editorTarget
		text   string
		err    error
	}
)

const (
	editTryArgs editorTarget = iota + 1
	editPauseArgs
	editPauseReply
)

// Kickoff and runs.
type (
	startRunMsg struct {
		req  KickoffRequest
		bp   crew.Breakpoints
		step bool
	}
	runStartedMsg struct {
		gen    int
		handle *RunHandle
		err    error
	}
	runEventsMsg struct {
		gen    int
		events []session.Event
	}
	runEventsClosedMsg struct{ gen int }
	runDoneMsg         struct {
		gen     int
		outcome RunOutcome
	}
	pauseMsg struct {
		gen int
		req *crew.PauseRequest
	}
)

// Sessions.
type (
	sessionsListedMsg struct {
		list []SessionInfo
		err  error
	}
	sessionOpenedMsg struct {
		path string
		file *session.File
		err  error
	}
	openSessionMsg struct{ path string }

	// rerunSetupMsg asks the root to open the re-run form for a session
	// with the filters the playground is trying.
	rerunSetupMsg struct{ path string }
	// compareRunMsg asks the root to compare a session with the last run
	// made in this workbench.
	compareRunMsg struct{ path string }
	// compareDoneMsg is a finished comparison.
	compareDoneMsg struct {
		gen  int
		diff *session.SessionDiff
		err  error
	}
	// rerunEventsMsg / rerunEventsClosedMsg stream a re-run's events
	// (progress); rerunDoneMsg is its result, compared with the recording.
	rerunEventsMsg struct {
		gen    int
		events []session.Event
	}
	rerunEventsClosedMsg struct{ gen int }
	rerunDoneMsg         struct {
		gen  int
		res  *rerun.Result
		diff *session.SessionDiff
		red  *session.Redactor
		err  error
	}
	// showEventsMsg asks the root to show events in the trace (a re-run's).
	showEventsMsg struct {
		source string
		events []session.Event
	}
)
