//! The conversation sent to the model, and how much of it is unchanged
//! since the last checkpoint: messages are appended on every iteration and
//! rewritten only by compaction, a plan approval or a restore, so a
//! checkpoint usually has just the new messages to store.

use std::ops::Deref;

use crate::model::Message;

#[derive(Debug, Default)]
pub struct Conversation {
    messages: Vec<Message>,
    /// Leading messages unchanged since the last checkpoint.
    checkpointed: usize,
    /// The provider's count of the input tokens of the last request, and
    /// how many messages that request held.
    measured: Option<(u64, usize)>,
}

impl Conversation {
    pub fn push(&mut self, message: Message) {
        self.messages.push(message);
    }

    /// Any change other than appending. The next checkpoint then looks at
    /// every message again (those it already holds are not rewritten).
    pub fn edit(&mut self) -> &mut Vec<Message> {
        self.checkpointed = 0;
        self.measured = None;
        &mut self.messages
    }

    /// The provider counted `input_tokens` for the messages as they are
    /// now (0: it did not say).
    pub fn measured_as(&mut self, input_tokens: u64) {
        self.measured = (input_tokens > 0).then_some((input_tokens, self.messages.len()));
    }

    /// The provider's last count and the messages added since, if the
    /// conversation has only grown since it counted.
    pub fn measured(&self) -> Option<(u64, &[Message])> {
        let (tokens, len) = self.measured?;
        Some((tokens, self.messages.get(len..)?))
    }

    pub fn replace(&mut self, messages: Vec<Message>) {
        *self.edit() = messages;
    }

    /// How many leading messages the last checkpoint stored as they are.
    pub fn unchanged_since_checkpoint(&self) -> usize {
        self.checkpointed
    }

    /// A checkpoint stored the first `messages` messages as they are
    /// (they were taken as an iteration ended; more may follow them now).
    pub fn mark_checkpointed(&mut self, messages: usize) {
        self.checkpointed = messages.min(self.messages.len());
    }
}

impl Deref for Conversation {
    type Target = [Message];

    fn deref(&self) -> &[Message] {
        &self.messages
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(text: &str) -> Message {
        Message::User {
            text: text.to_owned(),
            images: Vec::new(),
        }
    }

    #[test]
    fn appending_keeps_the_checkpointed_prefix_and_edits_reset_it() {
        let mut conversation = Conversation::default();
        conversation.push(user("a"));
        conversation.push(user("b"));
        conversation.mark_checkpointed(2);
        conversation.push(user("c"));
        assert_eq!(conversation.unchanged_since_checkpoint(), 2);
        // A checkpoint taken before "c" came, written after.
        conversation.mark_checkpointed(2);
        assert_eq!(conversation.unchanged_since_checkpoint(), 2);
        conversation.edit().remove(0);
        assert_eq!(conversation.unchanged_since_checkpoint(), 0);
        // Never more than there is.
        conversation.mark_checkpointed(5);
        assert_eq!(conversation.unchanged_since_checkpoint(), 2);
        conversation.replace(vec![user("z")]);
        assert_eq!(conversation.unchanged_since_checkpoint(), 0);
        assert_eq!(conversation.len(), 1);
    }
}
