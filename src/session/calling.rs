//! The model's turn: one call streamed into the conversation, the
//! fallback model when the first one keeps failing, and one more try
//! after compacting when the provider refuses the request as too long.

use super::persist::{CheckpointTarget, PendingCheckpoint};
use super::{Session, turn};
use crate::model::{AssistantTurn, ModelError, ModelRequest, Usage};
use crate::protocol::events::{ErrorCode, Event};

impl Session {
    pub(super) fn count_usage(&mut self, usage: Usage) {
        let event = self.state.count_usage(usage, &self.config.model.prices());
        self.events.emit(event);
    }

    /// A request the provider refuses as too long is compacted and sent
    /// once more, instead of ending the session.
    pub(super) async fn call_model_fitting(
        &mut self,
    ) -> Result<(AssistantTurn, Option<String>), ModelError> {
        match self.call_model_or_fallback().await {
            Err(ModelError::ContextTooLong(message)) => {
                if self.compact_after_refusal(&message).await {
                    self.call_model().await
                } else {
                    Err(ModelError::ContextTooLong(message))
                }
            }
            other => other,
        }
    }

    /// A model whose retries are spent on errors worth retrying hands over
    /// to its fallback, once, and the session says so.
    async fn call_model_or_fallback(
        &mut self,
    ) -> Result<(AssistantTurn, Option<String>), ModelError> {
        match self.call_model().await {
            Err(error) if error.is_retryable() && self.config.fallback.is_some() => {
                let Some(fallback) = self.config.fallback.take() else {
                    return Err(error);
                };
                self.events.emit(Event::warning(
                    ErrorCode::ModelFallback,
                    format!(
                        "the model {} kept failing ({error}); going on with {}",
                        self.config.model_alias, fallback.alias
                    ),
                ));
                self.model = fallback.client;
                self.config.model = fallback.spec;
                self.config.model_alias = fallback.alias;
                self.call_model().await
            }
            other => other,
        }
    }

    /// The model's turn, and what to tell it when its answer was cut for
    /// repeating itself.
    async fn call_model(&mut self) -> Result<(AssistantTurn, Option<String>), ModelError> {
        let events = self.events.clone();
        let emit = move |event: Event| {
            events.emit(event);
        };
        let mut builder = turn::TurnBuilder::new(self.state.iterations, &self.offer.builtin);
        if self.config.loop_breaker.enabled {
            builder = builder.cut_repeats(self.config.loop_breaker.repeated_text);
        }
        self.state.progress.model_calls += 1;
        // The checkpoint taken as the last iteration ended is written
        // while the model works (`persist.rs`); its bytes are marked
        // stored once the conversation is free again.
        let mut written = None;
        let pending = &mut self.pending_checkpoint;
        let mut target = CheckpointTarget {
            checkpointer: &mut self.checkpointer,
            conversation: &self.state.conversation,
            config: &self.config,
            events: &self.events,
            control: &self.control,
        };
        let mut on_sent = || {
            if let Some(messages) = PendingCheckpoint::write_taken(pending, &mut target) {
                written = Some(messages);
            }
        };
        let mut live = turn::LiveTurn {
            builder,
            emit: &emit,
            on_sent: &mut on_sent,
        };
        let request = ModelRequest {
            model_id: &self.config.model.model,
            messages: &self.state.conversation,
            tools: &self.specs,
            max_output_tokens: self.config.model.max_output_tokens,
            temperature: self.config.model.temperature,
            cache_key: Some(&self.config.session_id),
        };
        let completed = self.model.complete(&request, &mut live).await;
        let turn::LiveTurn { builder, .. } = live;
        if let Some(messages) = written {
            self.state.conversation.mark_checkpointed(messages);
        }
        // A call that ended before its request could leave.
        self.flush_checkpoint();
        completed?;
        let told = builder.cut().map(str::to_owned);
        let (turn, usage) = builder.finish();
        self.state.conversation.measured_as(usage.input_tokens);
        self.count_usage(usage);
        Ok((turn, told))
    }
}
